package querystring

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name, raw string
		max       int
		want      url.Values
		err       string // in the error; "" for none
	}{
		{name: "pairs and escapes", raw: "n=1&q=a%20b&q=c+d", max: 10, want: url.Values{"n": {"1"}, "q": {"a b", "c d"}}},
		{name: "empty pairs are skipped", raw: "n=1&&", max: 10, want: url.Values{"n": {"1"}}},
		{name: "as many parameters as the limit", raw: "a=1&b=2&c=3", max: 3, want: url.Values{"a": {"1"}, "b": {"2"}, "c": {"3"}}},
		{name: "one more than the limit", raw: "a=1&b=2&c=3&d=4", max: 3, err: "has 4 parameters, more than the 3 the host accepts (limits.queryParams)"},
		{name: "more than net/url parses", raw: strings.Repeat("a=1&", 10001), max: MaxParams, err: "has 10002 parameters"},
		{name: "a semicolon", raw: "n=1;q=2", max: 10, err: "a ';' at byte 3"},
		{name: "a percent without digits", raw: "n=1&q=100%", max: 10, err: `invalid escape "%"`},
		{name: "a percent with a non-hex digit", raw: "q=%zz&n=1", max: 10, err: `invalid escape "%zz"`},
		{name: "a bad escape in a name", raw: "q%g1=2", max: 10, err: `invalid escape "%g1"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.raw, tt.max, "limits.queryParams")
			if tt.err != "" {
				var qe *Error
				if err == nil || !errors.As(err, &qe) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Parse(%.40q) = %v, %v; want an *Error containing %q", tt.raw, got, err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) = %v, %v; want %v", tt.raw, got, err, tt.want)
			}
		})
	}
}
