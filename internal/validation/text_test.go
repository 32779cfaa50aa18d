package validation_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
	"github.com/wasmendpoints/endpoints/internal/validation"
)

func TestNotUTF8Values(t *testing.T) {
	tests := []struct {
		name   string
		param  string
		values []string
		want   string // the issue as path: message; "" for none
	}{
		{"all UTF-8", "q", []string{"café", "x"}, ""},
		{"a value", "q", []string{"ok", "ab\xffc"}, `[q]: is not valid UTF-8: byte \xff at offset 2; send text as UTF-8 (percent-encoded in a URL)`},
		{"the name", "q\xfe", []string{"ok"}, "[q\uFFFD]: the name is not valid UTF-8: byte \\xfe at offset 1; send text as UTF-8 (percent-encoded in a URL)"},
		{"no values", "q", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if i := validation.NotUTF8Values(tt.param, tt.values); i != nil {
				got = fmt.Sprintf("%v: %s", i.Path, i.Message)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestDecodeIssue(t *testing.T) {
	_, _, decodeErr := jsonvalue.Decode([]byte(`{"a":[1,}`), jsonvalue.Limits{MaxDepth: 8, MaxValues: 100})
	if decodeErr == nil {
		t.Fatal("the invalid JSON decoded")
	}
	var je *jsonvalue.Error
	if !errors.As(decodeErr, &je) {
		t.Fatalf("Decode's error %T is not a *jsonvalue.Error", decodeErr)
	}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"a decoding error keeps its path", decodeErr, fmt.Sprintf("%v: %s", je.Path, je.Message)},
		{"another error at the root", errors.New("broken"), "[]: broken"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := validation.DecodeIssue(tt.err)
			if got := fmt.Sprintf("%v: %s", i.Path, i.Message); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
