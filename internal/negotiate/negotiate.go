// Package negotiate picks the media type of a response from the request's Accept header: proactive content
// negotiation as RFC 9110 §12.5.1 defines it, for endpoints that offer more than one media type
// (docs/spec.md §4 step 4).
//
// An endpoint offers its media types in declaration order; [Choose] gives each offer the weight of the most
// specific media range that matches it and answers with the heaviest offer, the earliest one on ties:
//
//	negotiate.Choose("image/png;q=0, */*", []string{"image/png", "image/svg+xml"}) // "image/svg+xml", true
//
// The caller answers 406 when ok is false and adds "Vary: Accept" to every negotiated response
// (RFC 9110 §12.5.5).
package negotiate

import "strings"

// Choose picks the offer to answer with (RFC 9110 §12.5.1).
//
// accept is the Accept field value, several field lines joined with ", ", and "" when the request has none.
// offers are media types in declaration order, such as ["application/json", "text/csv"]. Each offer's
// quality is the weight of the most specific media range that matches it: "type/subtype" with parameters
// beats "type/subtype", which beats "type/*", which beats "*/*"; among ranges with parameters, more
// parameters beat fewer; among equally specific ranges the first one in the header counts. The offer with
// the highest quality wins, the earliest offer on ties. With no offer of quality above 0, Choose returns
// "", false: the caller answers 406 Not Acceptable.
//
//	Choose("text/html,application/xml;q=0.9,*/*;q=0.8", []string{"application/json", "text/csv"})
//	// "application/json", true: both weigh 0.8, so declaration order decides
//
// # Notes
//
//   - A range with parameters matches an offer only if the offer has every one of them with an equal value.
//     Names compare case-insensitively (RFC 9110 §5.6.6), quoted and unquoted values are equivalent, and
//     values compare exactly except "charset", which ignores case (RFC 9110 §8.3.2).
//   - q=0 refuses an offer even if a less specific range accepts it ("image/png;q=0, */*").
//   - An empty or absent header, one with only empty list elements, and a header with a syntax error anywhere
//     (see [Parse]) give the first offer, ok true: RFC 9110 §12.5.1 lets a server ignore an invalid Accept.
//   - Type and subtype compare case-insensitively (RFC 9110 §8.3.1). An offer that is not a valid media type
//     is only matched by a "*/*" range without parameters.
//   - Choose does not allocate for headers of up to 16 media ranges; it parses accept once per call.
//     With no offers it returns "", false.
func Choose(accept string, offers []string) (chosen string, ok bool) {
	if len(offers) == 0 {
		return "", false
	}
	var buf [stackRanges]mrange
	rs, e := parseAccept(buf[:0], accept)
	if e.want != "" || len(rs) == 0 {
		return offers[0], true
	}
	best, bestQ := -1, 0
	for i, offer := range offers {
		if q := quality(rs, offer); q > bestQ {
			best, bestQ = i, q
		}
	}
	if best < 0 {
		return "", false
	}
	return offers[best], true
}

// quality returns the weight in thousandths that the media ranges rs give to offer: that of the most
// specific matching range, the first one among equals, and 0 when none matches.
func quality(rs []mrange, offer string) int {
	typ, sub, params, _ := parseOffer(offer)
	q, level, nparams := 0, -1, 0
	for i := range rs {
		r := &rs[i]
		l, ok := matchLevel(r, typ, sub)
		if !ok || l < level || (l == level && r.nparams <= nparams) {
			continue
		}
		if r.nparams > 0 && !hasParams(r.params, params) {
			continue
		}
		q, level, nparams = r.q, l, r.nparams
	}
	return q
}

// matchLevel reports whether r's type and subtype match the offer's and how specific r is:
// 0 for "*/*", 1 for "type/*", 2 for "type/subtype".
func matchLevel(r *mrange, typ, sub string) (int, bool) {
	switch {
	case r.typ == "*": // the subtype is "*" too: parseRange rejects "*/subtype"
		return 0, true
	case r.sub == "*":
		return 1, strings.EqualFold(r.typ, typ)
	default:
		return 2, strings.EqualFold(r.typ, typ) && strings.EqualFold(r.sub, sub)
	}
}

// hasParams reports whether every parameter of the section want appears in the section have with an
// equal value.
func hasParams(want, have string) bool {
	for {
		name, val, rest, ok := nextParam(want)
		if !ok {
			return true
		}
		want = rest
		found := false
		for h := have; !found; {
			hname, hval, hrest, ok := nextParam(h)
			if !ok {
				break
			}
			h = hrest
			found = strings.EqualFold(name, hname) && sameValue(val, hval, strings.EqualFold(name, "charset"))
		}
		if !found {
			return false
		}
	}
}

// sameValue compares two parameter values, each a token or a quoted-string (RFC 9110 §5.6.6: the two
// forms are equivalent), ignoring ASCII case when fold is set.
func sameValue(a, b string, fold bool) bool {
	if a[0] != '"' && b[0] != '"' {
		if fold {
			return strings.EqualFold(a, b)
		}
		return a == b
	}
	i, j := 0, 0
	if a[0] == '"' {
		i = 1
	}
	if b[0] == '"' {
		j = 1
	}
	for {
		ca, ni, enda := nextByte(a, i)
		cb, nj, endb := nextByte(b, j)
		if enda || endb {
			return enda && endb
		}
		if ca != cb && !(fold && lower(ca) == lower(cb)) {
			return false
		}
		i, j = ni, nj
	}
}

// nextByte returns the byte of the value v (a token, or a quoted-string when v[0] is '"') at i.
func nextByte(v string, i int) (byte, int, bool) {
	if v[0] == '"' {
		return valueByte(v, i)
	}
	if i >= len(v) {
		return 0, i, true
	}
	return v[i], i + 1, false
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
