package routes

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/wasmendpoints/endpoints/host/internal/envelope"
	"github.com/wasmendpoints/endpoints/internal/queryobject"
	"github.com/wasmendpoints/endpoints/internal/querystring"
	"github.com/wasmendpoints/endpoints/internal/validation"
)

// ValidateParams puts the path parameters (names and values in the
// pattern's order, as the router matched them) in into, coerced to the
// types of the operation's params schema, and returns their issues: the
// values that are not UTF-8, else what the schema finds once its defaults
// are applied. nil means none; without a schema the values pass as they
// are.
func (op *Operation) ValidateParams(names, values []string, into map[string]any) []validation.Issue {
	var bad []validation.Issue
	for i, name := range names {
		value := values[i]
		switch {
		case !utf8.ValidString(value):
			bad = append(bad, validation.NotUTF8(name, value))
		case op.Params != nil:
			into[name] = op.Params.CoerceString(name, value)
		default:
			into[name] = value
		}
	}
	return validatePart(op.Params, into, bad)
}

// ValidateQuery puts the parameters of the raw query string in into,
// coerced to the types of the operation's query schema (object
// parameters gathered by their OpenAPI style first), and returns their
// issues: a query that does not parse whole or holds more than maxParams
// parameters (limits.queryParams), refused whole since the guest reads the
// raw query; object parameters that do not parse; values that are not
// UTF-8; else what the schema finds once its defaults are applied. keep
// names the query parameters no object parameter may gather (API keys
// sent in the query). An operation without a query schema reads nothing
// and has no issues.
func (op *Operation) ValidateQuery(rawQuery string, maxParams int, keep []string, into map[string]any) []validation.Issue {
	if op.Query == nil {
		return nil
	}
	var bad []validation.Issue
	values, err := querystring.Parse(rawQuery, maxParams, "limits.queryParams")
	if err != nil {
		bad = append(bad, validation.Issue{Path: []any{}, Message: err.Error()})
	}
	objects, err := op.QueryObjects.Gather(values, keep)
	var oerr *queryobject.Error
	if errors.As(err, &oerr) {
		bad = append(bad, validation.Issue{Path: []any{oerr.Param}, Message: oerr.Error()})
	}
	for k, members := range objects {
		if b := notUTF8Members(k, members); b != nil {
			bad = append(bad, *b)
			continue
		}
		into[k] = op.Query.CoerceMembers(k, members)
	}
	for k, vs := range values {
		if b := validation.NotUTF8Values(k, vs); b != nil {
			bad = append(bad, *b)
			continue
		}
		into[k] = op.Query.CoerceStrings(k, vs)
	}
	return validatePart(op.Query, into, bad)
}

// ValidateHeaders puts the request headers the operation's headers schema
// declares in into, split at commas and coerced to the schema's types, and
// returns their issues: values that are not UTF-8, else what the schema
// finds once its defaults are applied. An operation without a headers
// schema reads nothing and has no issues.
func (op *Operation) ValidateHeaders(r *http.Request, into map[string]any) []validation.Issue {
	if op.Headers == nil {
		return nil
	}
	var bad []validation.Issue
	for _, name := range op.Headers.Properties() {
		if vs := envelope.HeaderValues(r, name); len(vs) > 0 {
			if b := validation.NotUTF8Values(name, vs); b != nil {
				bad = append(bad, *b)
				continue
			}
			into[name] = op.Headers.CoerceStrings(name, splitHeaderValues(vs))
		}
	}
	return validatePart(op.Headers, into, bad)
}

// validatePart returns the issues of one part of the request: those its
// coercion found (bad), if any, else those of its values checked against
// its schema, defaults applied. A part without a schema has none.
func validatePart(schema *validation.Schema, values map[string]any, bad []validation.Issue) []validation.Issue {
	if bad != nil || schema == nil {
		return bad
	}
	schema.ApplyDefaults(values)
	return schema.Validate(values)
}

// notUTF8Members is validation.NotUTF8Values for the members of an object
// query parameter: the issue's path names the parameter and the member.
func notUTF8Members(param string, members map[string][]string) *validation.Issue {
	for m, vs := range members {
		if b := validation.NotUTF8Values(m, vs); b != nil {
			b.Path = append([]any{param}, b.Path...)
			return b
		}
	}
	return nil
}

// splitHeaderValues splits comma-separated header lines into values.
func splitHeaderValues(vs []string) []string {
	if len(vs) == 1 && !strings.Contains(vs[0], ",") {
		return vs
	}
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			out = append(out, strings.TrimSpace(p))
		}
	}
	return out
}
