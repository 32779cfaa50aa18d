package validation

// The fast path. jsonschema/v6 spends about a microsecond on a value even
// for one integer rule: it builds a validator, a scope and big.Rat numbers
// as it goes. Most request schemas are a few properties with types and
// bounds, so Compile also turns every schema made only of such keywords
// into a tree of fastNodes, whose checks read the host's values directly
// and allocate nothing while the value is valid.
//
// The fast path gives exactly the issues jsonschema/v6 gives: it reads the
// schema jsonschema compiled (its types, its big.Rat bounds, its compiled
// pattern and format functions), runs the checks in the validator's order,
// words them with the msg functions of issues.go and sorts them with
// sortIssues. A schema with any other keyword, anywhere in it, stays with
// jsonschema; so does a value the fast path does not read (a Go type the
// host never produces, a number too large to compare cheaply), one call at
// a time. fast_test.go compares both paths, in a table and by fuzzing.

import (
	"cmp"
	"encoding/json"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/wasmendpoints/endpoints/internal/jsonnum"
)

// maxFastDepth bounds the nesting of the schemas compileFast compiles; a
// deeper schema stays with jsonschema.
const maxFastDepth = 32

// maxFastPoint bounds the decimal exponent (jsonnum.Literal.Point) of the
// number literals the fast path reads. The host's numbers stay within the
// float64 range, |Point| <= 324; a literal beyond the bound is left to
// jsonschema, which is then the one to decide what to make of it.
const maxFastPoint = 1000

// compileFast compiles sch and every schema it reaches into direct checks.
// It returns nil when one of them uses a keyword, or holds a value, that
// the fast path does not cover, and when the schema is recursive: such a
// schema is validated by jsonschema alone.
func compileFast(sch *jsonschema.Schema) *fastNode {
	b := fastBuilder{open: map[*jsonschema.Schema]bool{}}
	n, ok := b.node(sch, 0)
	if !ok {
		return nil
	}
	return n
}

// fastBuilder compiles the schemas of one compileFast call.
type fastBuilder struct {
	// open holds the schemas being compiled, from the root down to the
	// current one: meeting one of them again means the schema is
	// recursive.
	open map[*jsonschema.Schema]bool
}

// fastKeywordsOnly reports whether s uses no keyword but those the fast
// path checks (type, const, enum, format, $ref from draft 2019 on, the
// object, array, string and number keywords fastNode lists) and
// annotations.
//
// TestFastPathKnowsEverySchemaField keeps this list in step with the
// fields of jsonschema.Schema.
func fastKeywordsOnly(s *jsonschema.Schema) bool {
	_, itemsList := s.Items.([]*jsonschema.Schema)
	return s.RecursiveRef == nil && s.DynamicRef == nil &&
		s.Not == nil && len(s.AllOf) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 &&
		s.If == nil && s.Then == nil && s.Else == nil &&
		s.PropertyNames == nil && len(s.PatternProperties) == 0 &&
		len(s.Dependencies) == 0 && len(s.DependentRequired) == 0 && len(s.DependentSchemas) == 0 &&
		s.UnevaluatedProperties == nil &&
		!s.UniqueItems && s.Contains == nil && s.MinContains == nil && s.MaxContains == nil &&
		!itemsList && s.AdditionalItems == nil && len(s.PrefixItems) == 0 && s.UnevaluatedItems == nil &&
		s.ContentEncoding == nil && s.ContentMediaType == nil && s.ContentSchema == nil &&
		len(s.Extensions) == 0 &&
		// Before draft 2019, $ref ends the checks of its schema.
		(s.Ref == nil || s.DraftVersion >= 2019)
}

// node compiles s at the given depth.
func (b *fastBuilder) node(s *jsonschema.Schema, depth int) (*fastNode, bool) {
	if s == nil || depth > maxFastDepth || b.open[s] {
		return nil, false
	}
	if s.Bool != nil {
		return &fastNode{always: *s.Bool, never: !*s.Bool}, true
	}
	if !fastKeywordsOnly(s) {
		return nil, false
	}
	b.open[s] = true
	defer delete(b.open, s)

	n := &fastNode{}
	if s.Types != nil {
		want := s.Types.ToStrings()
		for _, name := range want {
			n.types |= typeOf(name)
		}
		for _, k := range []typeSet{tNull, tBoolean, tNumber, tString, tArray, tObject} {
			n.typeMsgs[kindIndex(k)] = msgType(want, kindName(k))
		}
	}
	var ok bool
	if s.Const != nil {
		if n.konst, ok = newFastEnum([]any{*s.Const}, msgConst(*s.Const)); !ok {
			return nil, false
		}
	}
	if s.Enum != nil {
		if n.enum, ok = newFastEnum(s.Enum.Values, msgEnum(s.Enum.Values)); !ok {
			return nil, false
		}
	}
	if s.Format != nil {
		n.format, n.formatMsg = s.Format, msgFormat(s.Format.Name)
	}
	if s.Ref != nil {
		if n.ref, ok = b.node(s.Ref, depth+1); !ok {
			return nil, false
		}
	}
	if n.obj, ok = b.object(s, depth); !ok {
		return nil, false
	}
	if n.arr, ok = b.array(s, depth); !ok {
		return nil, false
	}
	n.str = newFastString(s)
	if n.num, ok = newFastNumber(s); !ok {
		return nil, false
	}
	return n, true
}

// object compiles the object keywords of s, or gives nil when it has none.
func (b *fastBuilder) object(s *jsonschema.Schema, depth int) (*fastObject, bool) {
	if s.MinProperties == nil && s.MaxProperties == nil && len(s.Required) == 0 &&
		len(s.Properties) == 0 && s.AdditionalProperties == nil {
		return nil, true
	}
	o := &fastObject{minProps: -1, maxProps: -1, required: s.Required, byName: map[string]*fastNode{}}
	if s.MinProperties != nil {
		o.minProps, o.minMsg = *s.MinProperties, msgMinProperties(*s.MinProperties)
	}
	if s.MaxProperties != nil {
		o.maxProps, o.maxMsg = *s.MaxProperties, msgMaxProperties(*s.MaxProperties)
	}
	for name, sub := range s.Properties {
		n, ok := b.node(sub, depth+1)
		if !ok {
			return nil, false
		}
		o.props = append(o.props, fastProp{name: name, node: n, required: slices.Contains(s.Required, name)})
		o.byName[name] = n
	}
	slices.SortFunc(o.props, func(a, b fastProp) int { return cmp.Compare(a.name, b.name) })
	for _, name := range s.Required {
		if o.byName[name] == nil {
			o.otherRequired = append(o.otherRequired, name)
		}
	}
	switch add := s.AdditionalProperties.(type) {
	case nil:
	case bool:
		o.noExtra = !add
	case *jsonschema.Schema:
		n, ok := b.node(add, depth+1)
		if !ok {
			return nil, false
		}
		o.extra = n
	default:
		return nil, false
	}
	return o, true
}

// array compiles the array keywords of s, or gives nil when it has none.
func (b *fastBuilder) array(s *jsonschema.Schema, depth int) (*fastArray, bool) {
	items := s.Items2020
	if sub, ok := s.Items.(*jsonschema.Schema); ok {
		if items != nil {
			return nil, false
		}
		items = sub
	}
	if s.MinItems == nil && s.MaxItems == nil && items == nil {
		return nil, true
	}
	a := &fastArray{minItems: -1, maxItems: -1}
	if s.MinItems != nil {
		a.minItems, a.minMsg = *s.MinItems, msgMinItems(*s.MinItems)
	}
	if s.MaxItems != nil {
		a.maxItems, a.maxMsg = *s.MaxItems, msgMaxItems(*s.MaxItems)
	}
	if items != nil {
		var ok bool
		if a.items, ok = b.node(items, depth+1); !ok {
			return nil, false
		}
	}
	return a, true
}

// newFastString compiles the string keywords of s, or gives nil when it
// has none.
func newFastString(s *jsonschema.Schema) *fastString {
	if s.MinLength == nil && s.MaxLength == nil && s.Pattern == nil {
		return nil
	}
	f := &fastString{minLen: -1, maxLen: -1}
	if s.MinLength != nil {
		f.minLen, f.minMsg = *s.MinLength, msgMinLength(*s.MinLength)
	}
	if s.MaxLength != nil {
		f.maxLen, f.maxMsg = *s.MaxLength, msgMaxLength(*s.MaxLength)
	}
	if s.Pattern != nil {
		f.pattern, f.patternMsg = s.Pattern, msgPattern(s.Pattern.String())
	}
	return f
}

// newFastNumber compiles the number keywords of s, or gives nil when it
// has none. ok is false for a bound that is not a finite decimal, which a
// JSON schema cannot write.
func newFastNumber(s *jsonschema.Schema) (f *fastNumber, ok bool) {
	if s.Minimum == nil && s.Maximum == nil && s.ExclusiveMinimum == nil &&
		s.ExclusiveMaximum == nil && s.MultipleOf == nil {
		return nil, true
	}
	f = &fastNumber{}
	for _, b := range []struct {
		dst  **fastBound
		want *big.Rat
		msg  func(*big.Rat) string
	}{
		{&f.min, s.Minimum, msgMinimum},
		{&f.max, s.Maximum, msgMaximum},
		{&f.exMin, s.ExclusiveMinimum, msgExclusiveMinimum},
		{&f.exMax, s.ExclusiveMaximum, msgExclusiveMaximum},
	} {
		if b.want == nil {
			continue
		}
		d, ok := newDecimal(b.want)
		if !ok {
			return nil, false
		}
		*b.dst = &fastBound{d, b.msg(b.want)}
	}
	if q := s.MultipleOf; q != nil {
		if q.Sign() <= 0 {
			return nil, false
		}
		m := &fastMultiple{rat: q, msg: msgMultipleOf(q)}
		if q.Num().IsUint64() {
			m.num = q.Num().Uint64()
		}
		f.multipleOf = m
	}
	return f, true
}

// newFastEnum compiles the values of "enum" or "const", whose message is
// msg. ok is false when one of them is an array or an object.
func newFastEnum(values []any, msg string) (e *fastEnum, ok bool) {
	e = &fastEnum{msg: msg}
	for _, v := range values {
		switch v := v.(type) {
		case nil:
			e.null = true
		case bool:
			e.bools[b2i(v)] = true
		case string:
			e.strs = append(e.strs, v)
		case json.Number:
			r, ok := new(big.Rat).SetString(string(v))
			if !ok {
				return nil, false
			}
			d, ok := newDecimal(r)
			if !ok {
				return nil, false
			}
			e.nums = append(e.nums, d)
		default:
			return nil, false
		}
	}
	return e, true
}

// fastNode is one schema compiled to direct checks. They run in the order
// of jsonschema/v6's validator: the value's JSON type, then "type",
// "const", "enum" and "format", each of which ends the node's checks when
// it fails; then "$ref"; then the keywords of the value's type.
type fastNode struct {
	// always is the schema true, which every value passes, even one of no
	// JSON type.
	always bool
	// never is the schema false.
	never bool
	// types is what "type" admits; 0 when the schema has no "type".
	types typeSet
	// typeMsgs holds the message of "type" for a value of each type, by
	// kindIndex.
	typeMsgs [7]string

	konst, enum *fastEnum          // "const" and "enum", or nil
	format      *jsonschema.Format // "format", the function jsonschema calls
	formatMsg   string
	ref         *fastNode // "$ref"

	// The keywords of one type of value, nil when the schema has none.
	obj *fastObject
	arr *fastArray
	str *fastString
	num *fastNumber
}

// fastObject holds the object keywords of a schema: minProperties,
// maxProperties, required, properties and additionalProperties.
type fastObject struct {
	minProps, maxProps int // -1 when absent
	minMsg, maxMsg     string
	required           []string
	// otherRequired holds the required names props does not declare.
	otherRequired []string
	props         []fastProp // sorted by name
	byName        map[string]*fastNode
	// noExtra is "additionalProperties": false.
	noExtra bool
	// extra is the schema of "additionalProperties", nil when absent,
	// true or false.
	extra *fastNode
}

// fastProp is one of "properties".
type fastProp struct {
	name     string
	node     *fastNode
	required bool // named in "required"
}

// fastArray holds the array keywords of a schema: minItems, maxItems and
// items (one schema for every item).
type fastArray struct {
	minItems, maxItems int // -1 when absent
	minMsg, maxMsg     string
	items              *fastNode
}

// fastString holds the string keywords of a schema: minLength, maxLength
// (in code points, as jsonschema counts) and pattern, jsonschema's compiled
// regular expression.
type fastString struct {
	minLen, maxLen int // -1 when absent
	minMsg, maxMsg string
	pattern        jsonschema.Regexp
	patternMsg     string
}

// fastNumber holds the number keywords of a schema; absent ones are nil.
type fastNumber struct {
	min, max, exMin, exMax *fastBound
	multipleOf             *fastMultiple
}

// fastBound is a bound of a number and the message of its keyword.
type fastBound struct {
	d   decimal
	msg string
}

// fastMultiple is "multipleOf".
type fastMultiple struct {
	rat *big.Rat
	// num is the numerator of rat in lowest terms, 0 when it is beyond
	// uint64: an integer is a multiple of rat when num divides it.
	num uint64
	msg string
}

// fastEnum is "enum" or "const": its values by type, and its message.
type fastEnum struct {
	null  bool
	bools [2]bool // false, true
	strs  []string
	nums  []decimal
	msg   string
}

// outcome is what a check makes of a value.
type outcome uint8

const (
	passed outcome = iota
	failed
	// undecided: the fast path does not read the value; jsonschema must.
	undecided
)

// and combines the outcomes of two checks of one value.
func (o outcome) and(p outcome) outcome { return max(o, p) }

// reporter collects the issues of the fast path's second pass. A nil
// *reporter is the first pass, which only asks whether the value is valid:
// checks then stop at the first failure and build nothing.
type reporter struct {
	root   any      // the value validated, for pathOf
	loc    []string // where the current value is in root
	issues []Issue
}

// fail reports msg at the current value.
func (r *reporter) fail(msg string) outcome {
	if r != nil {
		r.issues = append(r.issues, Issue{Path: pathOf(r.loc, r.root), Message: msg})
	}
	return failed
}

// failAt reports msg at the member tok of the current value.
func (r *reporter) failAt(tok, msg string) outcome {
	if r != nil {
		r.issues = append(r.issues, Issue{Path: pathOf(append(slices.Clip(r.loc), tok), r.root), Message: msg})
	}
	return failed
}

// push enters the member tok of the current value.
func (r *reporter) push(tok string) {
	if r != nil {
		r.loc = append(r.loc, tok)
	}
}

// pop leaves the member entered last.
func (r *reporter) pop() {
	if r != nil {
		r.loc = r.loc[:len(r.loc)-1]
	}
}

// validate checks v, first asking only whether it is valid, which
// allocates nothing, and then, when it is not, collecting its issues. ok
// is false when the fast path does not read v: jsonschema must validate
// it.
func (n *fastNode) validate(v any) (issues []Issue, ok bool) {
	switch n.check(v, nil) {
	case passed:
		return nil, true
	case undecided:
		return nil, false
	}
	r := reporter{root: v}
	if n.check(v, &r) == undecided {
		return nil, false
	}
	return sortIssues(r.issues), true
}

// check runs the checks of n on v, reporting failures to r (see reporter).
func (n *fastNode) check(v any, r *reporter) outcome {
	if n.always {
		return passed
	}
	if n.never {
		return r.fail(msgFalseSchema)
	}
	var (
		kind typeSet
		num  number
		str  string
		arr  []any
		obj  map[string]any
	)
	switch v := v.(type) {
	case nil:
		kind = tNull
	case bool:
		kind = tBoolean
	case string:
		kind, str = tString, v
	case int64:
		kind, num = tNumber, number{small: true, i: v}
	case json.Number:
		var ok bool
		if num, ok = readNumber(string(v)); !ok {
			return undecided
		}
		kind = tNumber
	case []any:
		kind, arr = tArray, v
	case map[string]any:
		kind, obj = tObject, v
	case outOfRange:
		// jsonschema: kind.InvalidJsonValue, which describe words so.
		return r.fail(v.err.Error())
	default:
		return undecided
	}
	if n.types != 0 && n.types&kind == 0 &&
		!(n.types&tInteger != 0 && kind == tNumber && num.integral()) {
		return r.fail(n.typeMsgs[kindIndex(kind)])
	}
	if n.konst != nil && !n.konst.has(kind, v, &num) {
		return r.fail(n.konst.msg)
	}
	if n.enum != nil && !n.enum.has(kind, v, &num) {
		return r.fail(n.enum.msg)
	}
	if n.format != nil && n.format.Validate(v) != nil {
		return r.fail(n.formatMsg)
	}
	res := passed
	if n.ref != nil {
		if res = n.ref.check(v, r); r == nil && res != passed {
			return res
		}
	}
	switch {
	case kind == tObject && n.obj != nil:
		res = res.and(n.obj.check(obj, r))
	case kind == tArray && n.arr != nil:
		res = res.and(n.arr.check(arr, r))
	case kind == tString && n.str != nil:
		res = res.and(n.str.check(str, r))
	case kind == tNumber && n.num != nil:
		res = res.and(n.num.check(&num, r))
	}
	return res
}

// check runs the object keywords on obj. The first pass (r nil) looks up
// each declared property once, for "required" and "properties" together;
// the second reports in jsonschema's order: the issues of "required"
// first, then those of the properties.
func (o *fastObject) check(obj map[string]any, r *reporter) outcome {
	res := passed
	if o.minProps >= 0 && len(obj) < o.minProps {
		if res = res.and(r.fail(o.minMsg)); r == nil {
			return res
		}
	}
	if o.maxProps >= 0 && len(obj) > o.maxProps {
		if res = res.and(r.fail(o.maxMsg)); r == nil {
			return res
		}
	}
	required := o.required
	if r == nil {
		required = o.otherRequired
	}
	for _, name := range required {
		if _, ok := obj[name]; !ok {
			if res = res.and(r.failAt(name, msgRequired)); r == nil {
				return res
			}
		}
	}
	declared := 0
	for i := range o.props {
		p := &o.props[i]
		pv, ok := obj[p.name]
		if !ok {
			if p.required && r == nil {
				return failed
			}
			continue
		}
		declared++
		r.push(p.name)
		res = res.and(p.node.check(pv, r))
		r.pop()
		if r == nil && res != passed {
			return res
		}
	}
	if declared == len(obj) || !o.noExtra && o.extra == nil {
		return res
	}
	if o.noExtra && r == nil {
		return failed
	}
	for name, pv := range obj {
		if _, ok := o.byName[name]; ok {
			continue
		}
		if o.noExtra {
			res = res.and(r.failAt(name, msgNotAllowedProperty))
			continue
		}
		r.push(name)
		res = res.and(o.extra.check(pv, r))
		r.pop()
		if r == nil && res != passed {
			return res
		}
	}
	return res
}

// check runs the array keywords on arr.
func (a *fastArray) check(arr []any, r *reporter) outcome {
	res := passed
	if a.minItems >= 0 && len(arr) < a.minItems {
		if res = res.and(r.fail(a.minMsg)); r == nil {
			return res
		}
	}
	if a.maxItems >= 0 && len(arr) > a.maxItems {
		if res = res.and(r.fail(a.maxMsg)); r == nil {
			return res
		}
	}
	if a.items == nil {
		return res
	}
	for i, item := range arr {
		if r != nil {
			r.push(strconv.Itoa(i))
		}
		res = res.and(a.items.check(item, r))
		r.pop()
		if r == nil && res != passed {
			return res
		}
	}
	return res
}

// check runs the string keywords on s.
func (f *fastString) check(s string, r *reporter) outcome {
	res := passed
	if f.minLen >= 0 || f.maxLen >= 0 {
		n := utf8.RuneCountInString(s)
		if f.minLen >= 0 && n < f.minLen {
			if res = res.and(r.fail(f.minMsg)); r == nil {
				return res
			}
		}
		if f.maxLen >= 0 && n > f.maxLen {
			if res = res.and(r.fail(f.maxMsg)); r == nil {
				return res
			}
		}
	}
	if f.pattern != nil && !f.pattern.MatchString(s) {
		res = res.and(r.fail(f.patternMsg))
	}
	return res
}

// check runs the number keywords on n. d.cmp(n) is below 0 when n is
// below the bound d, 0 when equal, above 0 when above.
func (f *fastNumber) check(n *number, r *reporter) outcome {
	res := passed
	if f.min != nil && f.min.d.cmp(n) < 0 {
		if res = res.and(r.fail(f.min.msg)); r == nil {
			return res
		}
	}
	if f.max != nil && f.max.d.cmp(n) > 0 {
		if res = res.and(r.fail(f.max.msg)); r == nil {
			return res
		}
	}
	if f.exMin != nil && f.exMin.d.cmp(n) <= 0 {
		if res = res.and(r.fail(f.exMin.msg)); r == nil {
			return res
		}
	}
	if f.exMax != nil && f.exMax.d.cmp(n) >= 0 {
		if res = res.and(r.fail(f.exMax.msg)); r == nil {
			return res
		}
	}
	if m := f.multipleOf; m != nil {
		switch ok, decided := m.divides(n); {
		case !decided:
			return undecided
		case !ok:
			res = res.and(r.fail(m.msg))
		}
	}
	return res
}

// divides reports whether n is a multiple of m, exactly as jsonschema
// decides it (n/m is an integer); decided is false for a literal big.Rat
// does not read.
func (m *fastMultiple) divides(n *number) (ok, decided bool) {
	if n.small {
		if m.num == 0 {
			return n.i == 0, true
		}
		abs := uint64(n.i)
		if n.i < 0 {
			abs = -abs
		}
		// n/(num/den) is an integer when num divides n·den, and so n, as
		// num and den have no common factor.
		return abs%m.num == 0, true
	}
	q, ok := new(big.Rat).SetString(n.text)
	if !ok {
		return false, false
	}
	return q.Quo(q, m.rat).IsInt(), true
}

// has reports whether the value v, of type kind (num when a number), is
// one of e's values.
func (e *fastEnum) has(kind typeSet, v any, num *number) bool {
	switch kind {
	case tNull:
		return e.null
	case tBoolean:
		return e.bools[b2i(v.(bool))]
	case tString:
		return slices.Contains(e.strs, v.(string))
	case tNumber:
		for i := range e.nums {
			if e.nums[i].cmp(num) == 0 {
				return true
			}
		}
	}
	return false
}

// number is a JSON number as the fast path reads it: an int64, or the
// exact digits of a literal (jsonnum) for any other.
type number struct {
	small bool
	i     int64           // when small
	lit   jsonnum.Literal // when not small
	text  string          // the literal, when not small
}

// readNumber reads a json.Number. ok is false for what is not a JSON
// number literal, and for one whose exponent is beyond maxFastPoint.
func readNumber(s string) (n number, ok bool) {
	if i, ok := smallInteger(s); ok {
		return number{small: true, i: i}, true
	}
	lit, ok := jsonnum.Parse(s)
	if !ok || lit.Point > maxFastPoint || lit.Point < -maxFastPoint {
		return number{}, false
	}
	return number{lit: lit, text: s}, true
}

// smallInteger reads an integer literal of at most 18 digits, written as
// JSON writes it (no leading zero, no plus sign), which an int64 holds.
func smallInteger(s string) (int64, bool) {
	digits := s
	if len(digits) > 0 && digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || digits[0] == '0' && len(digits) > 1 {
		return 0, false
	}
	var i int64
	for k := 0; k < len(digits); k++ {
		c := digits[k]
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int64(c-'0')
	}
	if len(digits) < len(s) {
		i = -i
	}
	return i, true
}

// integral reports whether n is an integer.
func (n *number) integral() bool {
	return n.small || n.lit.Zero() || n.lit.Integral()
}

// decimal is a number of a schema (a bound, a value of "enum" or "const")
// ready to be compared exactly with a number: as significant digits and
// exponent for literals, as its floor for int64s. Every number a JSON
// schema writes is a finite decimal.
type decimal struct {
	neg, zero bool
	point     int64  // as jsonnum.Literal.Point
	digits    string // the significant digits
	// floor is the largest integer not above the number, when it is in
	// the int64 range; above and below say that it is beyond that range.
	floor        int64
	above, below bool
	integral     bool
}

// newDecimal makes r a decimal; ok is false when r is not a finite
// decimal or has more than maxFastPoint digits after the point.
func newDecimal(r *big.Rat) (d decimal, ok bool) {
	// r = num/den in lowest terms: a finite decimal with k digits after
	// the point when den = 2^a·5^b, k = max(a, b).
	den := new(big.Int).Set(r.Denom())
	twos := den.TrailingZeroBits()
	den.Rsh(den, twos)
	fives := uint(0)
	five, rem := big.NewInt(5), new(big.Int)
	for den.Cmp(big.NewInt(1)) != 0 {
		q, m := new(big.Int).QuoRem(den, five, rem)
		if m.Sign() != 0 {
			return decimal{}, false
		}
		den, fives = q, fives+1
	}
	k := max(twos, fives)
	if k > maxFastPoint {
		return decimal{}, false
	}
	lit, ok := jsonnum.Parse(r.FloatString(int(k)))
	if !ok {
		return decimal{}, false
	}
	d = decimal{neg: lit.Neg, zero: lit.Zero(), point: lit.Point, digits: string(lit.AppendDigits(nil)), integral: r.IsInt()}
	floor, _ := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int))
	switch {
	case floor.IsInt64():
		d.floor = floor.Int64()
	case floor.Sign() > 0:
		d.above = true
	default:
		d.below = true
	}
	return d, true
}

// cmp compares n with d: -1 when n is less, 0 when equal, +1 when greater.
func (d *decimal) cmp(n *number) int {
	if n.small {
		switch {
		case d.above:
			return -1
		case d.below:
			return 1
		case n.i > d.floor:
			return 1 // n >= floor+1 > d
		case n.i < d.floor:
			return -1
		case d.integral:
			return 0
		}
		return -1 // n = floor < d
	}
	sn, sd := literalSign(&n.lit), d.sign()
	if sn != sd || sn == 0 {
		return cmp.Compare(sn, sd)
	}
	// Both are 0.digits × 10^point with a first digit that is not 0: the
	// larger point is the larger magnitude, then the larger digits.
	c := cmp.Compare(n.lit.Point, d.point)
	if c == 0 {
		c = n.lit.CompareDigits(d.digits)
	}
	return sn * c
}

// sign is -1, 0 or +1.
func (d *decimal) sign() int {
	switch {
	case d.zero:
		return 0
	case d.neg:
		return -1
	}
	return 1
}

// literalSign is the sign of l: -1, 0 or +1.
func literalSign(l *jsonnum.Literal) int {
	switch {
	case l.Zero():
		return 0
	case l.Neg:
		return -1
	}
	return 1
}

// kindIndex numbers the types of typeSet from 0 to 6.
func kindIndex(k typeSet) int { return bits.TrailingZeros8(uint8(k)) }

// kindName is the name jsonschema gives the type of a value, as in
// "received number".
func kindName(k typeSet) string {
	switch k {
	case tNull:
		return "null"
	case tBoolean:
		return "boolean"
	case tNumber:
		return "number"
	case tString:
		return "string"
	case tArray:
		return "array"
	case tObject:
		return "object"
	}
	return ""
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
