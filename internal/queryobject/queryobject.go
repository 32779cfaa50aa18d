// Package queryobject reads object query parameters the way an OpenAPI
// document spells them (OpenAPI 3.1 §4.8.12.4, "Style Values"):
//
//	style form, explode true (the default)  ?color=red&size=2
//	style form, explode false               ?filter=color,red,size,2
//	style deepObject                        ?filter[color]=red&filter[size]=2
//
// A [Set] is built once per operation from the contract; [Set.Gather] then
// takes each object parameter's members out of a parsed query, leaving the
// other parameters as they were.
package queryobject

import (
	"fmt"
	"slices"
	"strings"
)

// The styles an object query parameter may have.
const (
	// Form is OpenAPI's default query style.
	Form = "form"
	// DeepObject spells each member as name[member]=value.
	DeepObject = "deepObject"
)

// Param is one object query parameter.
type Param struct {
	// Name is the parameter's name.
	Name string
	// Style is Form or DeepObject.
	Style string
	// Explode is OpenAPI's explode; it matters only for Form, where true
	// spells each member as its own query parameter.
	Explode bool
	// Members are the member names the schema declares: with Form and
	// Explode, the query parameters that belong to this object.
	Members []string
	// Rest, with Form and Explode, also claims every query parameter
	// that is not in Declared (the query's own parameters): OpenAPI
	// spells an exploded object as all the query's other pairs, so its
	// schema judges them (additionalProperties false refuses them).
	// Only the sole exploded object of an operation has it.
	Rest     bool
	Declared []string
}

// Set is the object query parameters of one operation.
type Set []Param

// Error is a query whose object parameter cannot be read; its Param names
// the parameter, for the path.
type Error struct {
	Param string
	msg   string
}

func (e *Error) Error() string { return e.msg }

// Gather removes from values the query parameters that spell an object
// parameter and returns each object present as its members' values. A
// parameter none of whose members is present is absent from the result.
//
// Form with explode claims the query parameters named as the object's
// declared members; form without explode reads "name,value" pairs from
// the one value of the parameter; deepObject claims every
// "param[member]" key; then an exploded object with Rest takes every pair
// left that is neither declared nor named in keep (the query parameters
// that carry credentials, which no schema declares). A member given twice
// keeps both values, coerced later as a repeated query parameter is.
func (s Set) Gather(values map[string][]string, keep []string) (map[string]map[string][]string, error) {
	var out map[string]map[string][]string
	object := func(param string) map[string][]string {
		if out == nil {
			out = map[string]map[string][]string{}
		}
		if out[param] == nil {
			out[param] = map[string][]string{}
		}
		return out[param]
	}
	add := func(param, member string, vs ...string) {
		o := object(param)
		o[member] = append(o[member], vs...)
	}
	for _, p := range s {
		switch {
		case p.Style == DeepObject:
			prefix := p.Name + "["
			for k, vs := range values {
				if !strings.HasPrefix(k, prefix) {
					continue
				}
				member, ok := strings.CutSuffix(k[len(prefix):], "]")
				if !ok || member == "" || strings.ContainsAny(member, "[]") {
					return nil, &Error{Param: p.Name, msg: fmt.Sprintf("%q is not a member of %s as style deepObject spells it: write %s[member]=value (one level of brackets)", k, p.Name, p.Name)}
				}
				add(p.Name, member, vs...)
				delete(values, k)
			}
		case p.Explode:
			for _, m := range p.Members {
				if vs, ok := values[m]; ok {
					add(p.Name, m, vs...)
					delete(values, m)
				}
			}
		default:
			vs, ok := values[p.Name]
			if !ok {
				continue
			}
			if len(vs) > 1 {
				return nil, &Error{Param: p.Name, msg: fmt.Sprintf("%s is given %d times; as style form without explode the object is one parameter: %s=name,value,name,value", p.Name, len(vs), p.Name)}
			}
			delete(values, p.Name)
			object(p.Name)
			if vs[0] == "" {
				continue
			}
			parts := strings.Split(vs[0], ",")
			if len(parts)%2 != 0 {
				return nil, &Error{Param: p.Name, msg: fmt.Sprintf("%s=%s is not a list of name,value pairs (it has %d items); as style form without explode write %s=name,value,name,value", p.Name, vs[0], len(parts), p.Name)}
			}
			for i := 0; i < len(parts); i += 2 {
				add(p.Name, parts[i], parts[i+1])
			}
		}
	}
	// An exploded object with Rest takes what no other parameter took.
	for _, p := range s {
		if p.Style != Form || !p.Explode || !p.Rest {
			continue
		}
		for k, vs := range values {
			if !slices.Contains(p.Declared, k) && !slices.Contains(keep, k) {
				add(p.Name, k, vs...)
				delete(values, k)
			}
		}
	}
	return out, nil
}
