package openapi

import "testing"

func TestBoundIntegerFormats(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no format: the same bytes", `{"type": "integer"}`, `{"type": "integer"}`},
		{"a string format: the same bytes", `{"type": "string", "format": "email"}`, `{"type": "string", "format": "email"}`},
		{"int32 gains its range", `{"type":"integer","format":"int32"}`,
			`{"format":"int32","maximum":2147483647,"minimum":-2147483648,"type":"integer"}`},
		{"a bound given is kept", `{"type":"integer","format":"uint8","exclusiveMinimum":0}`,
			`{"exclusiveMinimum":0,"format":"uint8","maximum":255,"type":"integer"}`},
		{"nested, with text kept as written", `{"type":"object","properties":{"n":{"type":"integer","format":"int16"},"p":{"type":"string","pattern":"^a&b<c>$"}}}`,
			`{"properties":{"n":{"format":"int16","maximum":32767,"minimum":-32768,"type":"integer"},"p":{"pattern":"^a&b<c>$","type":"string"}},"type":"object"}`},
		{"values are not schemas", `{"enum":[{"format":"int8"}],"const":{"format":"int8"}}`, `{"enum":[{"format":"int8"}],"const":{"format":"int8"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(boundIntegerFormats([]byte(tt.in))); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
