package database

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/abi"
	"github.com/wasmendpoints/endpoints/internal/racedetector"
)

// TestDecodeSimpleParams: the fast path decodes what it accepts exactly as
// encoding/json does, and leaves the rest to it.
func TestDecodeSimpleParams(t *testing.T) {
	tests := []struct {
		params string
		simple bool // whether the fast path takes it
	}{
		{`[]`, true},
		{` [ ] `, true},
		{`[2]`, true},
		{`[2, "Grace Hopper", null, true, false]`, true},
		{"[\n\t-7 ,\r\"\"]", true},
		{`[0, -0, 9223372036854775807, -9223372036854775808]`, true},
		{`["héllo ✓"]`, true},
		{`[9223372036854775808]`, false}, // past int64: refused (TestDecodeParamsIntegerRange)
		{`[1.5]`, false},
		{`[1e3]`, false},
		{`["a\"b"]`, false},
		{`["a\u00e9"]`, false},
		{`[{"$blob": "AAE="}]`, false},
		{"[\"\xff\"]", false},
		{`[01]`, false},
		{`[-]`, false},
		{`[1,]`, false},
		{`[1 2]`, false},
		{`[nul]`, false},
		{`[nullx]`, false},
		{`[1] x`, false},
		{`[[1]]`, false},
		{`null`, false},
		{`{}`, false},
		{`[`, false},
		{`["open`, false},
	}
	for _, tt := range tests {
		t.Run(tt.params, func(t *testing.T) {
			got, ok := decodeSimpleParams(nil, []byte(tt.params))
			if ok != tt.simple {
				t.Fatalf("fast path took it: %v, want %v (%#v)", ok, tt.simple, got)
			}
			want, wantErr := decodeParamsJSON([]byte(tt.params))
			if ok && (wantErr != nil || !reflect.DeepEqual(got, want)) {
				t.Errorf("fast path %#v, encoding/json %#v, %v", got, want, wantErr)
			}
			all, err := DecodeParams([]byte(tt.params))
			if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(all, want) {
				t.Errorf("DecodeParams = %#v, %v; want %#v, %v", all, err, want, wantErr)
			}
			// AppendParams: after what dst holds, from either path; dst
			// as it was on an error.
			dst := append(make([]any, 0, 8), "kept")
			appended, err := AppendParams(dst, []byte(tt.params))
			wantAppended := append([]any{"kept"}, want...)
			if wantErr != nil {
				wantAppended = []any{"kept"}
			}
			if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(appended, wantAppended) {
				t.Errorf("AppendParams = %#v, %v; want %#v, %v", appended, err, wantAppended, wantErr)
			}
		})
	}
}

func BenchmarkDecodeParams(b *testing.B) {
	params := []byte(`[2, "Grace Hopper"]`)
	for b.Loop() {
		if _, err := DecodeParams(params); err != nil {
			b.Fatal(err)
		}
	}
}

// TestDecodeParamsIntegerRange: a parameter written as an integer is bound
// exactly or refused, never rounded to a float64; one written with an
// exponent or a fraction is a float64.
func TestDecodeParamsIntegerRange(t *testing.T) {
	for _, tt := range []struct {
		params string
		want   any    // the parameter, when decoded
		err    string // else the error holds this
	}{
		{`[9223372036854775807]`, int64(9223372036854775807), ""},
		{`[-9223372036854775808]`, int64(-9223372036854775808), ""},
		{`[9223372036854775808]`, nil, "parameter 1: the integer 9223372036854775808 is outside the range of a 64-bit integer; pass it as a string"},
		{`[1, -18446744073709551615]`, nil, "parameter 2: the integer -18446744073709551615 is outside"},
		{`[9.3e18]`, 9.3e18, ""},
		{`[18446744073709551615.0]`, 18446744073709551615.0, ""},
	} {
		args, err := DecodeParams([]byte(tt.params))
		switch {
		case tt.err != "":
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("DecodeParams(%s) = %#v, %v; want an error holding %q", tt.params, args, err, tt.err)
			}
		case err != nil || len(args) != 1 || args[0] != tt.want:
			t.Errorf("DecodeParams(%s) = %#v, %v; want [%#v]", tt.params, args, err, tt.want)
		}
	}
}

// TestDecodeParamsBoundsTheirNumber: a statement takes at most
// abi.DBParamsMax parameters; an array of more is refused as it is read,
// on either path, never decoded whole. A guest's memory holds 16 MiB of
// "[0,0,...]" easily: decoding its 8 Mi parameters took the host 800 MB
// of heap (a third of a GB in use, for one call), to fail in the
// database anyway.
func TestDecodeParamsBoundsTheirNumber(t *testing.T) {
	array := func(n int, v string) []byte {
		return []byte("[" + strings.Repeat(v+",", n-1) + v + "]")
	}
	for _, v := range []string{"0", `"a"`, `"\u0041"`, `{"$blob": "AAE="}`} {
		t.Run(v, func(t *testing.T) {
			if args, err := DecodeParams(array(abi.DBParamsMax, v)); err != nil || len(args) != abi.DBParamsMax {
				t.Errorf("%d parameters: %d decoded, %v; want all", abi.DBParamsMax, len(args), err)
			}
			args, err := AppendParams([]any{"kept"}, array(abi.DBParamsMax+1, v))
			if !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), fmt.Sprintf("more than %d parameters", abi.DBParamsMax)) || len(args) != 1 {
				t.Errorf("%d parameters: %d, %v; want ErrParams saying more than %d", abi.DBParamsMax+1, len(args), err, abi.DBParamsMax)
			}
		})
	}
	if racedetector.Enabled {
		return // its allocations are not the code's
	}
	huge := array(8<<20, "0")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := DecodeParams(huge)
	runtime.ReadMemStats(&after)
	if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; err == nil || mb > 32 {
		t.Errorf("8 Mi parameters: %v after allocating %d MiB; want an error after a few MiB", err, mb)
	}
}

// TestDecodeParamsRefusesANestedValueUnread: a parameter that is an array,
// or an object other than {"$blob": "<base64>"}, is refused as soon as it
// begins, never decoded whole: one parameter holding 8 Mi values
// ("[[0,0,...]]", or an object of as many members, or a blob object
// holding an array) took the host as much heap as 8 Mi parameters, past
// abi.DBParamsMax's bound, to be refused after.
func TestDecodeParamsRefusesANestedValueUnread(t *testing.T) {
	const n = 8 << 20
	zeros := "[" + strings.Repeat("0,", n-1) + "0]"
	members := "{" + strings.Repeat(`"a":0,`, n/4-1) + `"a":0}`
	tests := []struct {
		name, params, err string
	}{
		{"an array", "[" + zeros + "]", "parameter 1 is an array"},
		{"an array after a value", `[1, ` + zeros + "]", "parameter 2 is an array"},
		{"an object", "[" + members + "]", `parameter 1 is an object other than {"$blob": "<base64>"}`},
		{"a blob object holding an array", `[{"$blob": ` + zeros + "}]", `parameter 1 is an object other than {"$blob": "<base64>"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.params)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := DecodeParams(data)
			runtime.ReadMemStats(&after)
			if err == nil || !errors.Is(err, ErrParams) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("got %v, want ErrParams holding %q", err, tt.err)
			}
			if mb := (after.TotalAlloc - before.TotalAlloc) >> 20; !racedetector.Enabled && mb > 4 {
				t.Errorf("refusing it allocated %d MiB; want it refused unread", mb)
			}
		})
	}
	// What a blob object may be still decodes, whatever its spacing.
	args, err := DecodeParams([]byte(`[ { "$blob" : "AAE=" } , 2]`))
	if err != nil || len(args) != 2 || !reflect.DeepEqual(args[0], []byte{0, 1}) || args[1] != int64(2) {
		t.Errorf("a blob and an integer: %#v, %v", args, err)
	}
}
