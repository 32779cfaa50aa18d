package jsonvalue_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
)

func ExampleDecode() {
	body := []byte(`{"userId": 2.0, "tags": ["a", "b"], "ratio": 1E-7}`)
	v, canonical, err := jsonvalue.Decode(body, jsonvalue.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Validate v here; then hand the guest body itself when canonical,
	// else the value written back.
	fmt.Println(canonical)
	fmt.Println(string(jsonvalue.AppendValue(nil, v)))
	// Output:
	// false
	// {"ratio":1e-7,"tags":["a","b"],"userId":2}
}

func ExampleDecode_errors() {
	for _, body := range []string{
		`{"userId":"x","userId":2}`,
		"\xef\xbb\xbf{}",
		`{"name":"caf` + "\xe9" + `"}`,
		`{"n":1e999999999}`,
	} {
		_, _, err := jsonvalue.Decode([]byte(body), jsonvalue.Limits{})
		var e *jsonvalue.Error
		if errors.As(err, &e) {
			fmt.Printf("%q %s\n", e.Pointer, e.Message)
		}
	}
	// Output:
	// "/userId" invalid JSON at byte 14: duplicate member name "userId"; send each name once
	// "" invalid JSON at byte 0: a UTF-8 byte order mark (U+FEFF) must not precede JSON; send the JSON without it
	// "/name" invalid JSON at byte 12: invalid UTF-8 in a string: byte \xe9; send text encoded as UTF-8
	// "/n" invalid JSON at byte 5: number out of range: 1e999999999 exceeds the float64 range; send a number within ±1.7976931348623157e308
}

func ExampleCanonicalNumber() {
	for _, s := range []string{"2.0", "2e0", "1.5e3", "-0", "0.10", "1E-7", "12345678901234567890123", "1e309"} {
		c, err := jsonvalue.CanonicalNumber(s)
		fmt.Println(s, "->", c, err)
	}
	// Output:
	// 2.0 -> 2 <nil>
	// 2e0 -> 2 <nil>
	// 1.5e3 -> 1500 <nil>
	// -0 -> 0 <nil>
	// 0.10 -> 0.1 <nil>
	// 1E-7 -> 1e-7 <nil>
	// 12345678901234567890123 -> 12345678901234567890123 <nil>
	// 1e309 ->  number out of range: 1e309 exceeds the float64 range; send a number within ±1.7976931348623157e308
}

func ExampleAppendValue() {
	v := map[string]any{"b": json.Number("2.0"), "a": "x\ty", "c": []any{int64(1), 0.5, nil}}
	fmt.Println(string(jsonvalue.AppendValue(nil, v)))
	// Output:
	// {"a":"x\ty","b":2,"c":[1,0.5,null]}
}
