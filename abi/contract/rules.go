package contract

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/mediatype"
)

// Rules of this package: what [Parse] checks beyond contract.schema.json.
// They are the Rule of an [Issue].
const (
	// RuleJSON: the contract is not JSON ("line 3, column 5: invalid
	// character ...").
	RuleJSON = "json"

	// RuleJSONProfile: a response contentType must be application/json or
	// application/<name>+json (case-insensitive, parameters allowed), since
	// such a response is validated as JSON. Other types go in "media".
	RuleJSONProfile = "endpoints/json-profile"

	// RuleMediaContentType: a response has "media" and "contentType"; a media
	// response lists its types in "media" only.
	RuleMediaContentType = "endpoints/media-content-type"

	// RuleMediaType: a media type that does not parse (RFC 9110 §8.3.1), or a
	// range ("image/*") where a response needs a concrete type.
	RuleMediaType = "endpoints/media-type"

	// RuleMediaDuplicate: the same media type twice in "media" or in
	// body "content" (types compare case-insensitively).
	RuleMediaDuplicate = "endpoints/media-duplicate"

	// RuleMethodsSuffix: "methods" in a module whose file name already has a
	// method suffix.
	RuleMethodsSuffix = "endpoints/methods-suffix"

	// RuleMethodsExclusive: an operation field (request, responses,
	// responsesInferred, idempotency, security, onValidationError) beside "methods";
	// it belongs inside each method.
	RuleMethodsExclusive = "endpoints/methods-exclusive"

	// RuleIdempotencyMethod: "idempotency" on GET, HEAD or OPTIONS. Only
	// unsafe methods take an Idempotency-Key (docs/spec.md §6).
	RuleIdempotencyMethod = "endpoints/idempotency-method"

	// RuleInteger: a status in replayStatuses written with a fraction or
	// an exponent (200.0, 2e2).
	RuleInteger = "endpoints/integer"

	// RuleRef: a "$ref": "#/$defs/Name..." that names no def.
	RuleRef = "endpoints/ref"

	// RuleObjectSchema: request params, query or headers with a "type"
	// other than "object"; their properties are the parameters.
	RuleObjectSchema = "endpoints/object-schema"

	// RuleHeaderCase: a request header name that is not lower case.
	RuleHeaderCase = "endpoints/header-case"

	// RuleBody: a request body with both or neither of "schema" and
	// "content".
	RuleBody = "endpoints/body"

	// RuleDuration: a "timeout" or "idleTimeout" that is not a positive Go
	// duration ("0s", "99999999h").
	RuleDuration = "endpoints/duration"

	// RuleIdleTimeoutStream: "idleTimeout" on an operation that declares
	// no media response: only a streamed answer goes out as it is
	// written, so only a stream can be idle.
	RuleIdleTimeoutStream = "endpoints/idle-timeout-stream"

	// RuleEncoding: "encoding" on a request media type other than
	// multipart/form-data, or an encoding contentType that is not a list
	// of media types.
	RuleEncoding = "endpoints/encoding"
)

// methodNames are the method suffixes and methods keys of docs/spec.md §2, in
// upper case.
var methodNames = []string{
	http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch,
	http.MethodDelete, http.MethodHead, http.MethodOptions,
}

// safeMethods take no Idempotency-Key (docs/spec.md §6).
var safeMethods = []string{http.MethodGet, http.MethodHead, http.MethodOptions}

// operationFields may not stand beside "methods": each method has its own.
var operationFields = []string{"request", "responses", "responsesInferred", "idempotency", "security", "onValidationError", "timeout", "idleTimeout"}

// checker applies the rules of this package to a decoded contract. It
// tolerates any shape: what the schema already reports (a string where an
// object belongs) is skipped here, not reported twice.
type checker struct {
	issues []Issue
}

func (c *checker) add(ptr, rule, format string, args ...any) {
	c.issues = append(c.issues, Issue{Pointer: ptr, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// contract checks the whole contract; method is the upper-case method of the
// file-name suffix, "" for none.
func (c *checker) contract(doc any, method string) {
	root, ok := doc.(map[string]any)
	if !ok {
		return
	}
	rootDefs := defsOf(root)
	if m, ok := root["methods"]; ok {
		if method != "" {
			c.add("/methods", RuleMethodsSuffix,
				"the file name already fixes the method to %s; remove \"methods\" or the .%s suffix",
				method, strings.ToLower(method))
		} else {
			for _, f := range operationFields {
				if _, ok := root[f]; ok {
					c.add(pointer(f), RuleMethodsExclusive,
						"%q cannot stand beside \"methods\"; move it into each method that needs it", f)
				}
			}
		}
		if ops, ok := m.(map[string]any); ok {
			for _, name := range methodNames {
				lower := strings.ToLower(name)
				if op, ok := ops[lower].(map[string]any); ok {
					c.operation(pointer("methods", lower), name, op, []map[string]any{defsOf(op), rootDefs})
				}
			}
		}
	}
	c.operation("", method, root, []map[string]any{rootDefs})
}

// operation checks one operation: the top-level contract, or one entry of
// methods. defs are the $defs a "#/$defs/..." reference may name, nearest
// first.
func (c *checker) operation(ptr, method string, op map[string]any, defs []map[string]any) {
	if idem, ok := op["idempotency"]; ok {
		if slices.Contains(safeMethods, method) {
			c.add(child(ptr, "idempotency"), RuleIdempotencyMethod,
				"%s is a safe method and takes no Idempotency-Key; idempotency applies to POST, PATCH, PUT and DELETE (docs/spec.md §6)", method)
		}
		if idem, ok := idem.(map[string]any); ok {
			if statuses, ok := idem["replayStatuses"].([]any); ok {
				for i, s := range statuses {
					if n, ok := s.(json.Number); ok {
						if _, err := n.Int64(); err != nil {
							c.add(child(child(child(ptr, "idempotency"), "replayStatuses"), fmt.Sprint(i)), RuleInteger,
								"got %s, want a status written as an integer, without fraction or exponent", n)
						}
					}
				}
			}
		}
	}
	for _, name := range []string{"timeout", "idleTimeout"} {
		// What the schema's pattern refuses is reported there.
		if s, ok := op[name].(string); ok && durationPattern.MatchString(s) {
			if d, err := time.ParseDuration(s); err != nil || d <= 0 {
				c.add(child(ptr, name), RuleDuration, "%q is not a positive duration such as \"30s\" or \"2m\"", s)
			}
		}
	}
	if _, ok := op["idleTimeout"]; ok && !streams(op) {
		c.add(child(ptr, "idleTimeout"), RuleIdleTimeoutStream,
			"the operation declares no media response, so its answer is buffered and never idle; declare the streamed response (\"media\": [\"text/event-stream\"]) or drop idleTimeout")
	}
	if req, ok := op["request"].(map[string]any); ok {
		c.request(child(ptr, "request"), req)
	}
	if resps, ok := op["responses"].(map[string]any); ok {
		for _, status := range sortedKeys(resps) {
			if r, ok := resps[status].(map[string]any); ok {
				c.response(child(child(ptr, "responses"), status), r)
			}
		}
	}
	c.schemas(ptr, op, defs)
}

// durationPattern is the pattern of contract.schema.json's "duration".
var durationPattern = regexp.MustCompile(`^([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$`)

// streams reports whether the operation op declares a media response,
// whose answer streams.
func streams(op map[string]any) bool {
	resps, _ := op["responses"].(map[string]any)
	for _, r := range resps {
		if r, ok := r.(map[string]any); ok && r["media"] != nil {
			return true
		}
	}
	return false
}

func (c *checker) request(ptr string, req map[string]any) {
	for _, part := range []abi.Part{abi.PartParams, abi.PartQuery, abi.PartHeaders} {
		name := part.String()
		s, ok := req[name].(map[string]any)
		if !ok {
			continue
		}
		p := child(ptr, name)
		if !describesObjects(s["type"]) {
			c.add(child(p, "type"), RuleObjectSchema,
				"got %s, want \"object\": the properties of %s are the parameters", display(s["type"]), name)
		}
		if part != abi.PartHeaders {
			continue
		}
		if props, ok := s["properties"].(map[string]any); ok {
			for _, h := range sortedKeys(props) {
				if h != strings.ToLower(h) {
					c.add(child(child(p, "properties"), h), RuleHeaderCase,
						"header %q must be written in lower case: %q", h, strings.ToLower(h))
				}
			}
		}
		if req, ok := s["required"].([]any); ok {
			for i, h := range req {
				if h, ok := h.(string); ok && h != strings.ToLower(h) {
					c.add(child(child(p, "required"), fmt.Sprint(i)), RuleHeaderCase,
						"header %q must be written in lower case: %q", h, strings.ToLower(h))
				}
			}
		}
	}
	body, ok := req[abi.PartBody.String()].(map[string]any)
	if !ok {
		return
	}
	bp := child(ptr, abi.PartBody.String())
	_, hasSchema := body["schema"]
	content, hasContent := body["content"]
	switch {
	case hasSchema && hasContent:
		c.add(bp, RuleBody, "has both \"schema\" and \"content\"; want \"schema\" for a JSON body or \"content\" for one entry per media type")
	case !hasSchema && !hasContent:
		c.add(bp, RuleBody, "has neither \"schema\" nor \"content\"; want \"schema\" for a JSON body or \"content\" for one entry per media type")
	}
	if content, ok := content.(map[string]any); ok {
		seen := map[string]string{}
		for _, mt := range sortedKeys(content) {
			p := child(child(bp, "content"), mt)
			canon, _, err := mediatype.Parse(mt)
			if err != nil {
				c.add(p, RuleMediaType, "%q is not a media type: %v", mt, err)
				continue
			}
			if first, dup := seen[canon]; dup {
				c.add(p, RuleMediaDuplicate, "%q is the same media type as %q (media types are case-insensitive)", mt, first)
				continue
			}
			seen[canon] = mt
			m, _ := content[mt].(map[string]any)
			enc, ok := m["encoding"].(map[string]any)
			if !ok {
				continue
			}
			if canon != "multipart/form-data" {
				c.add(child(p, "encoding"), RuleEncoding, "encoding applies to the parts of a multipart/form-data body, not to %q", mt)
				continue
			}
			for _, field := range sortedKeys(enc) {
				e, _ := enc[field].(map[string]any)
				list, _ := e["contentType"].(string)
				for _, t := range strings.Split(list, ",") {
					if _, _, err := mediatype.Parse(strings.TrimSpace(t)); err != nil && list != "" {
						c.add(child(child(child(p, "encoding"), field), "contentType"), RuleEncoding, "%q is not a comma-separated list of media types: %v", list, err)
						break
					}
				}
			}
		}
	}
}

func (c *checker) response(ptr string, r map[string]any) {
	ct, hasCT := r["contentType"].(string)
	media, hasMedia := r["media"].([]any)
	if hasCT && hasMedia {
		c.add(ptr, RuleMediaContentType,
			"has both \"media\" and \"contentType\"; a media response lists its types in \"media\" only, a JSON response names its +json type in \"contentType\"")
	}
	if hasCT && !mediatype.IsJSON(ct) {
		c.add(child(ptr, "contentType"), RuleJSONProfile,
			"got %q, want application/json or application/<name>+json; list other media types in \"media\"", ct)
	}
	if !hasMedia {
		return
	}
	seen := map[string]int{}
	for i, m := range media {
		s, ok := m.(string)
		if !ok {
			continue
		}
		p := child(child(ptr, "media"), fmt.Sprint(i))
		canon, wildcard, err := mediatype.Parse(s)
		switch {
		case err != nil:
			c.add(p, RuleMediaType, "%q is not a media type: %v", s, err)
			continue
		case wildcard:
			c.add(p, RuleMediaType, "%q is a media range; a response declares the concrete types it sends, such as \"image/png\"", s)
			continue
		}
		if first, dup := seen[canon]; dup {
			c.add(p, RuleMediaDuplicate, "%q repeats item %d (media types are case-insensitive)", s, first)
			continue
		}
		seen[canon] = i
	}
}

// describesObjects reports whether a schema's "type" admits only objects:
// absent, "object" or ["object"].
func describesObjects(t any) bool {
	switch t := t.(type) {
	case nil:
		return true
	case string:
		return t == "object"
	case []any:
		return len(t) == 1 && t[0] == "object"
	}
	return false
}

// schemas checks every "$ref": "#/$defs/..." in the schemas of an operation
// and in its $defs.
func (c *checker) schemas(ptr string, op map[string]any, defs []map[string]any) {
	visit := func(p string, s any) { c.refs(p, s, s, defs) }
	if req, ok := op["request"].(map[string]any); ok {
		rp := child(ptr, "request")
		for _, part := range []abi.Part{abi.PartParams, abi.PartQuery, abi.PartHeaders} {
			if s, ok := req[part.String()]; ok {
				visit(child(rp, part.String()), s)
			}
		}
		if body, ok := req[abi.PartBody.String()].(map[string]any); ok {
			bp := child(rp, abi.PartBody.String())
			if s, ok := body["schema"]; ok {
				visit(child(bp, "schema"), s)
			}
			if content, ok := body["content"].(map[string]any); ok {
				for _, mt := range sortedKeys(content) {
					if m, ok := content[mt].(map[string]any); ok {
						if s, ok := m["schema"]; ok {
							visit(child(child(child(bp, "content"), mt), "schema"), s)
						}
					}
				}
			}
		}
	}
	if resps, ok := op["responses"].(map[string]any); ok {
		for _, status := range sortedKeys(resps) {
			r, ok := resps[status].(map[string]any)
			if !ok {
				continue
			}
			p := child(child(ptr, "responses"), status)
			if s, ok := r["schema"]; ok {
				visit(child(p, "schema"), s)
			}
			if hs, ok := r["headers"].(map[string]any); ok {
				for _, h := range sortedKeys(hs) {
					visit(child(child(p, "headers"), h), hs[h])
				}
			}
		}
	}
	if own, ok := op["$defs"].(map[string]any); ok {
		for _, name := range sortedKeys(own) {
			visit(child(child(ptr, "$defs"), name), own[name])
		}
	}
}

// subschemaKeywords are the JSON Schema 2020-12 keywords (and the older
// ones still found in the wild) whose value is a schema, an array of
// schemas or a map of schemas.
var (
	schemaValued = []string{"additionalProperties", "unevaluatedProperties", "unevaluatedItems",
		"items", "additionalItems", "contains", "propertyNames", "not", "if", "then", "else", "contentSchema"}
	schemaArrays = []string{"allOf", "anyOf", "oneOf", "prefixItems", "items"}
	schemaMaps   = []string{"properties", "patternProperties", "dependentSchemas", "$defs", "definitions", "dependencies"}
)

// refs checks the $ref of schema s at ptr and of its subschemas. root is the
// embedded schema s belongs to: a name in its own $defs is accepted too. A
// schema with an "$id" starts a resource of its own, where "#" means
// something else, so its references are not checked.
func (c *checker) refs(ptr string, s, root any, defs []map[string]any) {
	obj, ok := s.(map[string]any)
	if !ok {
		return
	}
	if _, ok := obj["$id"]; ok {
		return
	}
	if ref, ok := obj["$ref"].(string); ok && strings.HasPrefix(ref, "#/$defs/") {
		c.ref(child(ptr, "$ref"), ref, root, defs)
	}
	for _, kw := range schemaValued {
		if sub, ok := obj[kw].(map[string]any); ok {
			c.refs(child(ptr, kw), sub, root, defs)
		}
	}
	for _, kw := range schemaArrays {
		if subs, ok := obj[kw].([]any); ok {
			for i, sub := range subs {
				c.refs(child(child(ptr, kw), fmt.Sprint(i)), sub, root, defs)
			}
		}
	}
	for _, kw := range schemaMaps {
		if subs, ok := obj[kw].(map[string]any); ok {
			for _, name := range sortedKeys(subs) {
				c.refs(child(child(ptr, kw), name), subs[name], root, defs)
			}
		}
	}
}

// ref checks one "#/$defs/Name/..." reference: the def must exist in the
// embedded schema's own $defs, the operation's or the contract's, and the
// rest of the pointer must lead somewhere inside it.
func (c *checker) ref(ptr, ref string, root any, defs []map[string]any) {
	frag, err := url.PathUnescape(strings.TrimPrefix(ref, "#"))
	if err != nil {
		c.add(ptr, RuleRef, "%q is not a valid URI fragment: %v", ref, err)
		return
	}
	tokens := splitPointer(frag)[1:] // drop "$defs"
	name, rest := tokens[0], tokens[1:]
	scopes := defs
	if r, ok := root.(map[string]any); ok {
		scopes = append([]map[string]any{defsOf(r)}, defs...)
	}
	var known []string
	for _, d := range scopes {
		def, ok := d[name]
		if !ok {
			for n := range d {
				if !slices.Contains(known, n) {
					known = append(known, n)
				}
			}
			continue
		}
		if resolve(def, rest) {
			return
		}
		c.add(ptr, RuleRef, "%q points nowhere: def %q has no %s", ref, name, showPointer(pointer(rest...)))
		return
	}
	slices.Sort(known)
	msg := fmt.Sprintf("%q names no def: there is no %q in $defs", ref, name)
	if s := closest(name, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	if len(known) > 0 {
		msg += "; defined: " + strings.Join(known, ", ")
	}
	c.add(ptr, RuleRef, "%s", msg)
}

// resolve reports whether the reference tokens lead to a value inside v.
func resolve(v any, tokens []string) bool {
	for _, t := range tokens {
		switch cur := v.(type) {
		case map[string]any:
			next, ok := cur[t]
			if !ok {
				return false
			}
			v = next
		case []any:
			i, err := parseIndex(t)
			if err != nil || i >= len(cur) {
				return false
			}
			v = cur[i]
		default:
			return false
		}
	}
	return true
}

// parseIndex parses an RFC 6901 array index: digits, no leading zero.
func parseIndex(t string) (int, error) {
	if t == "" || t[0] < '0' || t[0] > '9' || (len(t) > 1 && t[0] == '0') {
		return 0, fmt.Errorf("bad index %q", t)
	}
	i, err := strconv.Atoi(t)
	if err != nil {
		return 0, fmt.Errorf("bad index %q", t)
	}
	return i, nil
}

func defsOf(obj map[string]any) map[string]any {
	d, _ := obj["$defs"].(map[string]any)
	return d
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
