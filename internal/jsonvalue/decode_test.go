package jsonvalue

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// decodeCases are inputs Decode accepts, with the value and canonical flag
// it returns. FuzzDecode is seeded from them.
var decodeCases = []struct {
	name      string
	in        string
	want      any
	canonical bool
}{
	{"object", `{"userId":7,"name":"Ada"}`, map[string]any{"userId": json.Number("7"), "name": "Ada"}, true},
	{"array of every kind", `[null,true,false,"s",1,{},[]]`, []any{nil, true, false, "s", json.Number("1"), map[string]any{}, []any{}}, true},
	{"scalar root", `"x"`, "x", true},
	{"whitespace around and inside", " \t\r\n{ \"a\" : [ 1 , 2 ] }\n ", map[string]any{"a": []any{json.Number("1"), json.Number("2")}}, true},
	{"escapes are decoded", `"a\"b\\c\/d\b\f\n\r\t\u00e9\u2026"`, "a\"b\\c/d\b\f\n\r\té…", true},
	{"surrogate pair", `"\ud83d\ude00"`, "😀", true},
	{"non-ASCII name", `{"…":1}`, map[string]any{"…": json.Number("1")}, true},
	{"names differing only in escapes are distinct when their values differ", `{"a":1,"b":2,"\u0063":3}`, map[string]any{"a": json.Number("1"), "b": json.Number("2"), "c": json.Number("3")}, true},
	{"2.0 is the integer 2", `2.0`, json.Number("2"), false},
	{"2e0 is the integer 2", `2e0`, json.Number("2"), false},
	{"1e1 is the integer 10", `1e1`, json.Number("10"), false},
	{"1E+2 is the integer 100", `1E+2`, json.Number("100"), false},
	{"1.5e3 is the integer 1500", `1.5e3`, json.Number("1500"), false},
	{"-0 is 0", `-0`, json.Number("0"), false},
	{"-0.0e5 is 0", `-0.0e5`, json.Number("0"), false},
	{"0.1 is canonical", `0.1`, json.Number("0.1"), true},
	{"0.10 loses its zero", `0.10`, json.Number("0.1"), false},
	{"1e-7 is canonical", `1e-7`, json.Number("1e-7"), true},
	{"1E-7 is written 1e-7", `1E-7`, json.Number("1e-7"), false},
	{"0.0000001 is written 1e-7", `0.0000001`, json.Number("1e-7"), false},
	{"0.000001 stays fixed", `0.000001`, json.Number("0.000001"), true},
	{"1e308 is an exact integer", `1e308`, json.Number("1" + strings.Repeat("0", 308)), false},
	{"math.MaxFloat64 written out passes", maxFloatDigits, json.Number(maxFloatDigits), true},
	{"5e-324 passes", `5e-324`, json.Number("5e-324"), true},
	{"3e-324 rounds to 5e-324", `3e-324`, json.Number("5e-324"), false},
	{"9223372036854775808 stays exact", `9223372036854775808`, json.Number("9223372036854775808"), true},
	{"integers beyond float64 precision stay exact", `12345678901234567890123`, json.Number("12345678901234567890123"), true},
	{"fractions are rounded to float64", `0.1000000000000000000001`, json.Number("0.1"), false},
	{"a fraction may round to an integer", `2.00000000000000000001`, json.Number("2"), false},
	{"numbers are canonical at any depth", `{"a":[{"b":2.0}]}`, map[string]any{"a": []any{map[string]any{"b": json.Number("2")}}}, false},
}

func TestDecode(t *testing.T) {
	for _, tt := range decodeCases {
		t.Run(tt.name, func(t *testing.T) {
			got, canonical, err := Decode([]byte(tt.in), Limits{})
			if err != nil {
				t.Fatalf("Decode(%q) error: %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Decode(%q) = %#v, want %#v", tt.in, got, tt.want)
			}
			if canonical != tt.canonical {
				t.Errorf("Decode(%q) canonical = %v, want %v", tt.in, canonical, tt.canonical)
			}
		})
	}
}

// errorCases are inputs Decode refuses, with the exact error. FuzzDecode
// is seeded from them.
var errorCases = []struct {
	name    string
	in      string
	pointer string
	path    []any
	message string
}{
	// Encoding.
	{"byte order mark", "\xef\xbb\xbf{}", "", []any{},
		"invalid JSON at byte 0: a UTF-8 byte order mark (U+FEFF) must not precede JSON; send the JSON without it"},
	{"byte order mark after whitespace", " \xef\xbb\xbf{}", "", []any{},
		"invalid JSON at byte 1: expected a JSON value, found U+FEFF (a byte order mark)"},
	{"invalid UTF-8 in a value", `{"name":"ab` + "\xe2" + `c"}`, "/name", []any{"name"},
		`invalid JSON at byte 11: invalid UTF-8 in a string: byte \xe2; send text encoded as UTF-8`},
	{"invalid UTF-8 in a name", `{"a` + "\xe2\x80" + `":1}`, "", []any{},
		`invalid JSON at byte 3: invalid UTF-8 in a string: byte \xe2; send text encoded as UTF-8`},
	{"Latin-1 text", `["caf` + "\xe9" + `"]`, "/0", []any{0},
		`invalid JSON at byte 5: invalid UTF-8 in a string: byte \xe9; send text encoded as UTF-8`},
	{"UTF-8 encoded surrogate", `"` + "\xed\xa0\x80" + `"`, "", []any{},
		`invalid JSON at byte 1: invalid UTF-8 in a string: byte \xed; send text encoded as UTF-8`},
	{"lone high surrogate escape", `{"a":"\ud800"}`, "/a", []any{"a"},
		`invalid JSON at byte 6: lone surrogate \ud800 in a string; send the character as UTF-8 or as a pair of surrogate escapes`},
	{"high surrogate escape followed by another escape", `"\uD800\u0041"`, "", []any{},
		`invalid JSON at byte 1: lone surrogate \uD800 in a string; send the character as UTF-8 or as a pair of surrogate escapes`},
	{"lone low surrogate escape", `"x\udc00"`, "", []any{},
		`invalid JSON at byte 2: lone surrogate \udc00 in a string; send the character as UTF-8 or as a pair of surrogate escapes`},
	{"non-ASCII character where a name belongs", `{…:1}`, "", []any{},
		`invalid JSON at byte 1: expected a member name in double quotes or '}', found '…' (U+2026)`},
	{"non-ASCII character after a name with one", `{"…" x}`, "/…", []any{"…"},
		`invalid JSON at byte 7: expected ':' after a member name, found 'x'`},
	{"invisible character", "[\u200b]", "/0", []any{0},
		`invalid JSON at byte 1: expected a value or ']', found U+200B`},
	{"non-breaking space is not JSON whitespace", "[\u00a0]", "/0", []any{0},
		`invalid JSON at byte 1: expected a value or ']', found U+00A0`},
	{"form feed is not JSON whitespace", "[\f1]", "/0", []any{0},
		`invalid JSON at byte 1: expected a value or ']', found U+000C`},
	{"stray byte outside strings", "[\x80]", "/0", []any{0},
		`invalid JSON at byte 1: expected a value or ']', found byte \x80`},

	// Strings.
	{"unknown escape", `"\x"`, "", []any{},
		`invalid JSON at byte 1: invalid escape sequence \x in a string; the escapes are \" \\ \/ \b \f \n \r \t and \u followed by four hex digits`},
	{"short unicode escape", `"\u12x4"`, "", []any{},
		`invalid JSON at byte 1: invalid escape sequence \u12x4 in a string; \u needs four hex digits`},
	{"raw tab in a string", "\"a\tb\"", "", []any{},
		`invalid JSON at byte 2: unescaped control character U+0009 in a string; write it as \t`},
	{"raw NUL in a string", "\"a\x00\"", "", []any{},
		`invalid JSON at byte 2: unescaped control character U+0000 in a string; write it as \u0000`},
	{"unterminated string", `{"a":"bc`, "/a", []any{"a"},
		`invalid JSON at byte 8: expected '"' to end the string, found end of input`},
	{"unterminated escape", `"bc\`, "", []any{},
		`invalid JSON at byte 4: expected '"' to end the string, found end of input`},

	// Duplicates.
	{"duplicate name", `{"userId":"x","userId":2}`, "/userId", []any{"userId"},
		`invalid JSON at byte 14: duplicate member name "userId"; send each name once`},
	{"duplicate name written with an escape", `{"a":1, "\u0061":2}`, "/a", []any{"a"},
		`invalid JSON at byte 8: duplicate member name "a"; send each name once`},
	{"duplicate name in a nested object", `{"a":[{"b":1},{"b":1,"b":1}]}`, "/a/1/b", []any{"a", 1, "b"},
		`invalid JSON at byte 21: duplicate member name "b"; send each name once`},

	// Depth (MaxDepth is 3 in this table).
	{"one level past the limit", `[[[[1]]]]`, "/0/0/0", []any{0, 0, 0},
		`invalid JSON at byte 3: nests deeper than 3 levels of arrays and objects; send a flatter value`},
	{"past the limit in objects", `{"a":{"b":{"c":{}}}}`, "/a/b/c", []any{"a", "b", "c"},
		`invalid JSON at byte 15: nests deeper than 3 levels of arrays and objects; send a flatter value`},

	// Numbers.
	{"1e309 is beyond float64", `[1e309]`, "/0", []any{0},
		`invalid JSON at byte 1: number out of range: 1e309 exceeds the float64 range; send a number within ±1.7976931348623157e308`},
	{"1e400 is beyond float64", `{"n":1e400}`, "/n", []any{"n"},
		`invalid JSON at byte 5: number out of range: 1e400 exceeds the float64 range; send a number within ±1.7976931348623157e308`},
	{"a billion-digit exponent", `{"n":1e999999999}`, "/n", []any{"n"},
		`invalid JSON at byte 5: number out of range: 1e999999999 exceeds the float64 range; send a number within ±1.7976931348623157e308`},
	{"math.MaxFloat64 plus one", maxFloatDigits[:308] + "9", "", []any{},
		`invalid JSON at byte 0: number out of range: 17976931348623157081452742373170…858369 exceeds the float64 range; send a number within ±1.7976931348623157e308`},
	{"1e-400 would round to 0", `1e-400`, "", []any{},
		`invalid JSON at byte 0: number out of range: 1e-400 is too small for a float64 and would round to 0; send 0 or a number of magnitude 5e-324 or more`},
	{"2e-324 would round to 0", `-2e-324`, "", []any{},
		`invalid JSON at byte 0: number out of range: -2e-324 is too small for a float64 and would round to 0; send 0 or a number of magnitude 5e-324 or more`},
	{"leading zero", `[01]`, "", []any{},
		`invalid JSON at byte 2: invalid number: leading zeros are not allowed; write numbers without them`},
	{"leading zero at the root", `-01`, "", []any{},
		`invalid JSON at byte 2: invalid number: leading zeros are not allowed; write numbers without them`},
	{"no digit after the point", `[1.]`, "/0", []any{0},
		`invalid JSON at byte 3: invalid number: expected a digit after '.', found ']'`},
	{"no digit after the minus", `-x`, "", []any{},
		`invalid JSON at byte 1: invalid number: expected a digit after '-', found 'x'`},
	{"no digit in the exponent", `1e+`, "", []any{},
		`invalid JSON at byte 3: invalid number: expected a digit in the exponent, found end of input`},
	{"plus sign", `+1`, "", []any{},
		`invalid JSON at byte 0: expected a JSON value, found '+'`},
	{"NaN", `NaN`, "", []any{},
		`invalid JSON at byte 0: expected a JSON value, found 'N'`},

	// Grammar.
	{"empty input", ``, "", []any{},
		`invalid JSON at byte 0: expected a JSON value, found end of input`},
	{"only whitespace", " \n\t", "", []any{},
		`invalid JSON at byte 3: expected a JSON value, found end of input`},
	{"trailing garbage", `{"a":1} x`, "", []any{},
		`invalid JSON at byte 8: expected end of input after the JSON value, found 'x'; send one JSON value`},
	{"two values", `1 2`, "", []any{},
		`invalid JSON at byte 2: expected end of input after the JSON value, found '2'; send one JSON value`},
	{"extra closing bracket", `[]]`, "", []any{},
		`invalid JSON at byte 2: expected end of input after the JSON value, found ']'; send one JSON value`},
	{"truncated object", `{"a":[1,2`, "/a", []any{"a"},
		`invalid JSON at byte 9: expected ',' or ']' after an array element, found end of input`},
	{"missing colon", `{"a" 1}`, "/a", []any{"a"},
		`invalid JSON at byte 5: expected ':' after a member name, found '1'`},
	{"missing comma between members", `{"a":1 "b":2}`, "", []any{},
		`invalid JSON at byte 7: expected ',' or '}' after a member value, found '"'`},
	{"missing comma between elements", `[1 2]`, "", []any{},
		`invalid JSON at byte 3: expected ',' or ']' after an array element, found '2'`},
	{"trailing comma in an array", `[1,]`, "/1", []any{1},
		`invalid JSON at byte 3: expected a value, found ']'`},
	{"trailing comma in an object", `{"a":1,}`, "", []any{},
		`invalid JSON at byte 7: expected a member name in double quotes, found '}'`},
	{"name that is not a string", `{1:2}`, "", []any{},
		`invalid JSON at byte 1: expected a member name in double quotes or '}', found '1'`},
	{"single quotes", `{'a':1}`, "", []any{},
		`invalid JSON at byte 1: expected a member name in double quotes or '}', found "'"`},
	{"missing value", `{"a":}`, "/a", []any{"a"},
		`invalid JSON at byte 5: expected a value, found '}'`},
	{"misspelled literal", `[nul]`, "/0", []any{0},
		`invalid JSON at byte 4: expected null, found ']'`},
	{"truncated literal", `tru`, "", []any{},
		`invalid JSON at byte 3: expected true, found end of input`},
	{"literal with trailing letters", `[truex]`, "", []any{},
		`invalid JSON at byte 5: expected ',' or ']' after an array element, found 'x'`},
	{"pointer tokens are escaped", `{"a/b":{"m~n":[}}`, "/a~1b/m~0n/0", []any{"a/b", "m~n", 0},
		`invalid JSON at byte 15: expected a value or ']', found '}'`},
}

func TestDecodeErrors(t *testing.T) {
	for _, tt := range errorCases {
		t.Run(tt.name, func(t *testing.T) {
			v, canonical, err := Decode([]byte(tt.in), Limits{MaxDepth: 3})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Decode(%q) = %#v, %v, %v; want an *Error", tt.in, v, canonical, err)
			}
			if e.Message != tt.message {
				t.Errorf("Decode(%q) message:\n got %s\nwant %s", tt.in, e.Message, tt.message)
			}
			if e.Pointer != tt.pointer {
				t.Errorf("Decode(%q) pointer = %q, want %q", tt.in, e.Pointer, tt.pointer)
			}
			if !reflect.DeepEqual(e.Path, tt.path) {
				t.Errorf("Decode(%q) path = %#v, want %#v", tt.in, e.Path, tt.path)
			}
			if e.fallback {
				t.Errorf("Decode(%q) gave the tokenizer's message, not its own", tt.in)
			}
			if v != nil || canonical {
				t.Errorf("Decode(%q) = %#v, %v with an error; want nil, false", tt.in, v, canonical)
			}
			if got, want := errors.Is(err, ErrRange), strings.Contains(tt.message, "out of range"); got != want {
				t.Errorf("errors.Is(err, ErrRange) = %v, want %v", got, want)
			}
		})
	}
}

func TestDecodeDepth(t *testing.T) {
	nest := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name  string
		max   int
		in    string
		depth int // the accepted depth, or 0 when refused
	}{
		{"default limit reached", 0, nest(DefaultMaxDepth), DefaultMaxDepth},
		{"default limit passed", 0, nest(DefaultMaxDepth + 1), 0},
		{"scalars add no depth", 1, `[1,"x",null]`, 1},
		{"objects count as arrays do", 2, `{"a":[]}`, 2},
		{"objects past the limit", 1, `{"a":{}}`, 0},
		{"siblings do not add up", 2, `[[],[],{"a":1}]`, 2},
		{"a larger limit", 200, nest(200), 200},
		{"a larger limit passed", 200, nest(201), 0},
		{"beyond MaxDepthLimit acts as MaxDepthLimit", MaxDepthLimit + 5, nest(MaxDepthLimit + 1), 0},
		{"MaxDepthLimit reached", MaxDepthLimit + 5, nest(MaxDepthLimit), MaxDepthLimit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Decode([]byte(tt.in), Limits{MaxDepth: tt.max, MaxValues: 1 << 20})
			if tt.depth > 0 {
				if err != nil {
					t.Errorf("Decode at depth %d with MaxDepth %d: %v", tt.depth, tt.max, err)
				}
				return
			}
			want := "nests deeper than "
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Decode past the limit with MaxDepth %d: %v, want an error containing %q", tt.max, err, want)
			}
		})
	}
}

// TestDecodeDeepBodyIsCheap is the denial of service the limit closes: a
// body of 10 KB nested 5000 deep is refused after reading 65 tokens.
func TestDecodeDeepBodyIsCheap(t *testing.T) {
	body := []byte(strings.Repeat(`{"a":`, 2000) + "1" + strings.Repeat("}", 2000))
	_, _, err := Decode(body, Limits{})
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Decode of 2000 levels = %v, want an *Error", err)
	}
	if want := 5*DefaultMaxDepth + 0; e.Offset != want {
		t.Errorf("Offset = %d, want %d (the first '{' too deep)", e.Offset, want)
	}
	if len(e.Path) != DefaultMaxDepth {
		t.Errorf("len(Path) = %d, want %d", len(e.Path), DefaultMaxDepth)
	}
}

// TestDecodeHugeExponentAllocatesNothingBig shows that 1e999999999 is
// refused before any arithmetic: a billion-digit integer would allocate
// hundreds of megabytes.
func TestDecodeHugeExponentAllocatesNothingBig(t *testing.T) {
	for _, in := range []string{`1e999999999`, `-1e999999999999999999999999`, `0.5e-999999999`, `{"n":[1e999999999]}`} {
		t.Run(in, func(t *testing.T) {
			allocs := testing.AllocsPerRun(10, func() {
				if _, _, err := Decode([]byte(in), Limits{}); !errors.Is(err, ErrRange) {
					t.Fatalf("Decode(%q) = %v, want ErrRange", in, err)
				}
			})
			if allocs > 12 {
				t.Errorf("Decode(%q) made %v allocations, want at most 12", in, allocs)
			}
		})
	}
}

// TestDecodeValuesAreFresh checks that values share no memory with the
// input or with another call (the decoder and its tables are pooled).
func TestDecodeValuesAreFresh(t *testing.T) {
	in := []byte(`{"name":"Ada","tags":["x","y"],"pad":"` + strings.Repeat("p", internMinDoc) + `"}`)
	v, _, err := Decode(in, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i] = ' '
	}
	if _, _, err := Decode([]byte(`{"name":"Bob","tags":["z"]}`), Limits{}); err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["name"] != "Ada" || !reflect.DeepEqual(m["tags"], []any{"x", "y"}) {
		t.Errorf("value after the input changed and another call = %#v", v)
	}
}

func TestErrorUnwrap(t *testing.T) {
	_, _, err := Decode([]byte(`{"a":1,"a":2}`), Limits{})
	if errors.Is(err, ErrRange) {
		t.Errorf("a duplicate name is ErrRange: %v", err)
	}
	if err.Error() != err.(*Error).Message {
		t.Errorf("Error() = %q, want the Message", err.Error())
	}
}

// TestDecodeMaxValues: a value past Limits.MaxValues is refused where it
// starts; member names do not count.
func TestDecodeMaxValues(t *testing.T) {
	tests := []struct {
		in   string
		path []any // nil: accepted
	}{
		{`[1,2]`, nil},
		{`{"a":1,"b":2}`, nil},
		{`[1,2,3]`, []any{2}},
		{`{"a":1,"b":[2]}`, []any{"b", 0}},
		{`[[],{}]`, nil},
		{`[[],{},"x"]`, []any{2}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			_, _, err := Decode([]byte(tt.in), Limits{MaxValues: 3})
			if tt.path == nil {
				if err != nil {
					t.Fatalf("Decode(%s) = %v, want it accepted", tt.in, err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || !strings.Contains(e.Message, "holds more than 3 values") || fmt.Sprint(e.Path) != fmt.Sprint(tt.path) {
				t.Fatalf("Decode(%s) = %v, want more than 3 values at %v", tt.in, err, tt.path)
			}
		})
	}
}
