package routes

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/validation"
)

// issueText is an issue as the tests compare it: its path, then its
// message.
func issueText(is validation.Issue) string { return fmt.Sprintf("%v: %s", is.Path, is.Message) }

// checkIssues fails t unless issues start with the prefixes in want, one
// each, in order.
func checkIssues(t *testing.T, issues []validation.Issue, want []string) {
	t.Helper()
	if len(issues) != len(want) {
		t.Fatalf("issues = %v, want %d: %q", issues, len(want), want)
	}
	for i, w := range want {
		if got := issueText(issues[i]); !strings.HasPrefix(got, w) {
			t.Errorf("issue %d = %q, want %q", i, got, w)
		}
	}
}

// checkValues fails t unless values, as JSON, are want.
func checkValues(t *testing.T, values map[string]any, want string) {
	t.Helper()
	got, err := json.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("values = %s, want %s", got, want)
	}
}

func TestValidateParams(t *testing.T) {
	typed := mustCompile(t, "server/api/users/[id]/[slug].get.wasm", `{"request": {"params": {"type": "object",
		"properties": {"id": {"type": "integer", "minimum": 1}, "slug": {"type": "string"}}}}}`)["GET"]
	untyped := mustCompile(t, "server/api/users/[id]/[slug].get.wasm", `{}`)["GET"]
	for _, tc := range []struct {
		name       string
		op         *Operation
		values     []string
		wantValues string
		want       []string
	}{
		{name: "coerced to the schema's types", op: typed, values: []string{"7", "ann"}, wantValues: `{"id":7,"slug":"ann"}`},
		{name: "checked against the schema", op: typed, values: []string{"0", "ann"}, wantValues: `{"id":0,"slug":"ann"}`,
			want: []string{"[id]: must be greater than or equal to 1"}},
		{name: "a value of the wrong type", op: typed, values: []string{"seven", "ann"}, wantValues: `{"id":"seven","slug":"ann"}`,
			want: []string{"[id]: expected integer, received string"}},
		{name: "not UTF-8 is refused before the schema", op: typed, values: []string{"0", "a\xffb"}, wantValues: `{"id":0}`,
			want: []string{"[slug]"}},
		{name: "without a schema, strings as they are", op: untyped, values: []string{"7", "ann"}, wantValues: `{"id":"7","slug":"ann"}`},
		{name: "without a schema, not UTF-8 still refused", op: untyped, values: []string{"7", "\xff"}, wantValues: `{"id":"7"}`,
			want: []string{"[slug]"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			into := map[string]any{}
			checkIssues(t, tc.op.ValidateParams([]string{"id", "slug"}, tc.values, into), tc.want)
			checkValues(t, into, tc.wantValues)
		})
	}
}

func TestValidateQuery(t *testing.T) {
	op := mustCompile(t, "server/api/items.get.wasm", `{"request": {"query": {"type": "object", "properties": {
		"limit": {"type": "integer", "default": 10, "maximum": 100},
		"tags": {"type": "array", "items": {"type": "string"}},
		"filter": {"type": "object", "properties": {"color": {"type": "string"}}},
		"key": {"type": "string"}},
		"additionalProperties": {"type": "string"}},
		"queryStyles": {"filter": {"style": "deepObject"}}}}`)["GET"]
	noQuery := mustCompile(t, "server/api/items.get.wasm", `{}`)["GET"]
	for _, tc := range []struct {
		name, raw  string
		op         *Operation
		maxParams  int
		keep       []string
		wantValues string
		want       []string
	}{
		{name: "coerced, repeated values kept, defaults applied", op: op, raw: "tags=a&tags=b&other=x", maxParams: 10,
			wantValues: `{"limit":10,"other":"x","tags":["a","b"]}`},
		{name: "a deepObject parameter gathered", op: op, raw: "filter[color]=red&limit=5", maxParams: 10,
			wantValues: `{"filter":{"color":"red"},"limit":5}`},
		{name: "checked against the schema", op: op, raw: "limit=500", maxParams: 10, wantValues: `{"limit":500}`,
			want: []string{"[limit]: must be less than or equal to 100"}},
		{name: "more parameters than the limit", op: op, raw: "a=1&b=2&c=3", maxParams: 2,
			want: []string{"[]: the query string has 3 parameters, more than the 2 the host accepts (limits.queryParams)"}},
		{name: "a value that is not UTF-8", op: op, raw: "tags=%FF", maxParams: 10, wantValues: `{}`,
			want: []string{"[tags"}},
		{name: "a member that is not UTF-8 names the parameter and the member", op: op, raw: "filter[color]=%FF", maxParams: 10,
			wantValues: `{}`, want: []string{"[filter color"}},
		{name: "an operation without a query schema reads nothing", op: noQuery, raw: "limit=many&%zz", maxParams: 1, wantValues: `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			into := map[string]any{}
			checkIssues(t, tc.op.ValidateQuery(tc.raw, tc.maxParams, tc.keep, into), tc.want)
			if tc.wantValues != "" {
				checkValues(t, into, tc.wantValues)
			}
		})
	}
}

func TestValidateHeaders(t *testing.T) {
	op := mustCompile(t, "server/api/items.get.wasm", `{"request": {"headers": {"type": "object", "properties": {
		"x-count": {"type": "integer"},
		"x-tags": {"type": "array", "items": {"type": "string"}},
		"host": {"type": "string"}},
		"required": ["x-count"]}}}`)["GET"]
	noHeaders := mustCompile(t, "server/api/items.get.wasm", `{}`)["GET"]
	for _, tc := range []struct {
		name       string
		op         *Operation
		header     http.Header
		host       string
		wantValues string
		want       []string
	}{
		{name: "declared headers coerced, others left out", op: op, header: http.Header{"X-Count": {"3"}, "X-Other": {"1"}},
			wantValues: `{"x-count":3}`},
		{name: "comma-separated values split and trimmed", op: op, header: http.Header{"X-Count": {"1"}, "X-Tags": {"a, b", "c"}},
			wantValues: `{"x-count":1,"x-tags":["a","b","c"]}`},
		{name: "the Host header is readable", op: op, header: http.Header{"X-Count": {"1"}}, host: "example.com",
			wantValues: `{"host":"example.com","x-count":1}`},
		{name: "a missing required header", op: op, header: http.Header{}, wantValues: `{}`,
			want: []string{"[x-count]: is required"}},
		{name: "a value that is not UTF-8", op: op, header: http.Header{"X-Count": {"1"}, "X-Tags": {"\xff"}},
			wantValues: `{"x-count":1}`, want: []string{"[x-tags"}},
		{name: "an operation without a headers schema reads nothing", op: noHeaders, header: http.Header{"X-Count": {"x"}}, wantValues: `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &http.Request{Header: tc.header, Host: tc.host}
			into := map[string]any{}
			checkIssues(t, tc.op.ValidateHeaders(r, into), tc.want)
			checkValues(t, into, tc.wantValues)
		})
	}
}
