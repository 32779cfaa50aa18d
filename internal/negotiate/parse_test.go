package negotiate

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		accept string
		want   []Range
	}{
		{"empty", "", nil},
		{"only empty elements", " ,\t, ", nil},
		{"any", "*/*", []Range{{Type: "*", Subtype: "*", Q: 1}}},
		{"lower-cased", "Text/HTML;Level=1;Q=0.5", []Range{{Type: "text", Subtype: "html", Params: map[string]string{"level": "1"}, Q: 0.5}}},
		{"weights", "a/b;q=0, c/d;q=1.000, e/f;q=0.3, g/h;q=0.125, i/j;q=1., k/l;q=0.", []Range{
			{Type: "a", Subtype: "b", Q: 0},
			{Type: "c", Subtype: "d", Q: 1},
			{Type: "e", Subtype: "f", Q: 0.3},
			{Type: "g", Subtype: "h", Q: 0.125},
			{Type: "i", Subtype: "j", Q: 1},
			{Type: "k", Subtype: "l", Q: 0},
		}},
		{"quoted value unescaped", `text/plain;title="a \"b\", c";format=flowed`, []Range{
			{Type: "text", Subtype: "plain", Params: map[string]string{"title": `a "b", c`, "format": "flowed"}, Q: 1},
		}},
		{"extensions after the weight dropped", "text/plain;format=fixed;q=0.4;ext=1;flag;x=\"y\"", []Range{
			{Type: "text", Subtype: "plain", Params: map[string]string{"format": "fixed"}, Q: 0.4},
		}},
		{"empty elements and parameters", ",a/b;;x=1; ,, c/*;", []Range{
			{Type: "a", Subtype: "b", Params: map[string]string{"x": "1"}, Q: 1},
			{Type: "c", Subtype: "*", Q: 1},
		}},
		{"rfc 9110 example", rfc9110Accept, []Range{
			{Type: "text", Subtype: "*", Q: 0.3},
			{Type: "text", Subtype: "plain", Q: 0.7},
			{Type: "text", Subtype: "plain", Params: map[string]string{"format": "flowed"}, Q: 1},
			{Type: "text", Subtype: "plain", Params: map[string]string{"format": "fixed"}, Q: 0.4},
			{Type: "*", Subtype: "*", Q: 0.5},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.accept)
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Parse(%q) = %+v, %v; want %+v, nil", tt.accept, got, err, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, accept string
		want         string // a part of the message
	}{
		{"no subtype", "text/", `byte 5: want a subtype token after "/"`},
		{"no type", ";q=0.5", "byte 0: want a media range"},
		{"star type with a subtype", "*/html", `byte 0: want "*/*"`},
		{"no slash", "q=2", `byte 1: want "/" after the type "q"`},
		{"garbage", "(garbage)", "byte 0: want a media range"},
		{"q above 1", "text/html;q=1.5", "byte 12: want a weight from 0 to 1"},
		{"q above 1 by a thousandth", "text/html;q=1.001", "byte 12: want a weight"},
		{"q not a number", "text/html;q=abc", "byte 12: want a weight"},
		{"q with four decimals", "text/html;q=0.1234", "byte 12: want a weight"},
		{"q without leading digit", "text/html;q=.5", "byte 12: want a weight"},
		{"q with two integer digits", "text/html;q=00.5", "byte 12: want a weight"},
		{"q twice", "text/html;q=0.5;Q=0.6", `byte 16: want one weight per media range`},
		{"q without value", "text/html;q", `byte 11: want "=" after the parameter name "q"`},
		{"empty value", "text/html;a=", `byte 12: want a token or quoted-string value for the parameter "a"`},
		{"open quote", `text/html;a="b`, `byte 12: want a token or quoted-string value`},
		{"control character in quotes", "text/html;a=\"b\x01\"", `byte 12: want a token or quoted-string value`},
		{"space before =", "text/html;a =b", `byte 11: want "=" after the parameter name "a"`},
		{"missing comma", "text/html text/plain", `byte 10: want ";" before a parameter or "," before the next media range`},
		{"junk after a quoted value", `text/html;a="b"c`, `byte 15: want ";" before a parameter`},
		{"error in a later element", "text/html, image/", `byte 17: want a subtype token`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.accept)
			if err == nil || !errors.Is(err, ErrSyntax) || !strings.Contains(err.Error(), tt.want) || got != nil {
				t.Errorf("Parse(%q) = %+v, %v; want nil and an ErrSyntax error containing %q", tt.accept, got, err, tt.want)
			}
		})
	}
}
