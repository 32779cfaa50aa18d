package routes

import (
	stdjson "encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/validation"
	"github.com/wasmendpoints/endpoints/openapi"
)

// Response is one declared status of an operation, as its answers are
// checked.
type Response struct {
	// Schema is the body's schema; nil for media or bodiless responses.
	Schema *validation.Schema
	// ContentType is the declared JSON type, sent when the guest sets
	// none; "" for media or bodiless responses.
	ContentType string
	// headers are the schemas of the declared response headers, by
	// canonical name: a value the answer sends is checked against its.
	headers map[string]*validation.Schema
}

// declare adds one declared status, compiling its schema at pointer of
// comp when the answer is validated JSON.
func (op *Operation) declare(comp *validation.Contract, key string, resp *abi.Response, pointer string) error {
	status, _ := strconv.Atoi(key)
	d := &Response{}
	if !resp.IsMedia() && resp.Schema != nil {
		var err error
		if d.Schema, err = comp.Compile(pointer); err != nil {
			return err
		}
		d.ContentType = "application/json"
		if resp.ContentType != "" {
			d.ContentType = resp.ContentType
		}
	}
	base := strings.TrimSuffix(pointer, "/schema")
	for name := range resp.Headers {
		s, err := comp.Compile(base + "/headers/" + openapi.EscapeToken(name))
		if err != nil {
			return err
		}
		if s == nil {
			continue
		}
		if d.headers == nil {
			d.headers = map[string]*validation.Schema{}
		}
		d.headers[http.CanonicalHeaderKey(name)] = s
	}
	op.Responses[status] = d
	return nil
}

// addConfigResponses makes the statuses the routes configuration (file,
// rc) declares for the operation count as declared when answers are
// checked: a 401 that server/routes.config.json documents is an answer the
// contract allows. The contract's own declaration of a status wins.
func (op *Operation) addConfigResponses(file string, rc *openapi.RoutesConfig, pattern string) error {
	if rc == nil || op.Responses == nil {
		return nil
	}
	extra := rc.ResponsesFor(op.Method, pattern)
	if len(extra) == 0 {
		return nil
	}
	root := map[string]any{"responses": extra}
	if rc.Defs != nil {
		root["$defs"] = rc.Defs // a configuration without "$defs" has none: not null
	}
	doc, err := stdjson.Marshal(root)
	if err != nil {
		return err
	}
	comp, err := validation.NewContract(file, doc)
	if err != nil {
		return err
	}
	for key, resp := range extra {
		status, _ := strconv.Atoi(key)
		if _, ok := op.Responses[status]; ok {
			continue
		}
		if err := op.declare(comp, key, resp, "/responses/"+key+"/schema"); err != nil {
			return err
		}
	}
	op.listStatuses()
	return nil
}

// CheckHeaders returns what is wrong with the headers of an answer with
// the declared status: a Content-Type other than the declared JSON type
// (the document gives the body under that type only), and a declared
// header whose value its schema refuses. The path of an issue is
// ["headers", name]; nil means nothing is wrong.
func (d *Response) CheckHeaders(status int, header http.Header) []validation.Issue {
	var issues []validation.Issue
	if ct := header.Get("Content-Type"); ct != "" && d.ContentType != "" && !sameEssence(ct, d.ContentType) {
		issues = append(issues, validation.Issue{Path: []any{"headers", "Content-Type"},
			Message: fmt.Sprintf("is %q, but the contract declares %s for status %d", ct, d.ContentType, status)})
	}
	for _, name := range slices.Sorted(maps.Keys(d.headers)) {
		vs := header.Values(name)
		if len(vs) == 0 {
			continue
		}
		s := d.headers[name]
		for _, is := range s.Validate(s.CoerceValue(vs[0])) {
			is.Path = append([]any{"headers", name}, is.Path...)
			issues = append(issues, is)
		}
	}
	return issues
}

// sameEssence reports whether two media types are the same type and
// subtype, whatever their parameters ("application/json; charset=utf-8"
// is application/json).
func sameEssence(a, b string) bool {
	ma, _, errA := mime.ParseMediaType(a)
	mb, _, errB := mime.ParseMediaType(b)
	return errA == nil && errB == nil && ma == mb
}
