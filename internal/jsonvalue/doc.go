// Package jsonvalue holds JSON values as the host validates them and hands
// them to guests.
//
// Decode parses a request body into the values the validator
// (santhosh-tekuri/jsonschema/v6) checks, refusing what JSON allows but
// readers disagree on: duplicate member names (the host would validate one
// value and a guest read another), invalid UTF-8, lone surrogates, nesting
// deeper than a limit and numbers beyond the float64 range. Numbers come out
// in canonical form (CanonicalNumber), so 2.0 is validated and handed on as
// 2. AppendValue writes a value back as canonical JSON for a guest.
//
//	v, canonical, err := jsonvalue.Decode(body, jsonvalue.Limits{})
//	if err != nil {
//		// err is an *Error: a 400 naming the byte and the value
//	}
//	// validate v; hand the guest body itself when canonical is true,
//	// else jsonvalue.AppendValue(nil, v)
//
// # Notes
//
//   - RFC 8259 §9 lets a parser limit nesting and the range and precision
//     of numbers; these are the host's limits, and RFC 7493 (I-JSON) is the
//     profile whose rules on names and strings Decode applies.
//   - Decoding is built on github.com/go-json-experiment/json/jsontext,
//     which checks the grammar and UTF-8; this package adds the limits, the
//     values and error messages written for an API client.
package jsonvalue
