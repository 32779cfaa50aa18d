package config

import (
	"testing"

	"github.com/wasmendpoints/endpoints/internal/jsonvalue"
)

// TestJSONDefaultsAreTheDecoders: the defaults config documents for
// limits.jsonDepth and limits.jsonValues are those the decoder applies
// when the limits are zero.
func TestJSONDefaultsAreTheDecoders(t *testing.T) {
	if DefaultJSONDepth != jsonvalue.DefaultMaxDepth {
		t.Errorf("DefaultJSONDepth = %d, jsonvalue.DefaultMaxDepth = %d", DefaultJSONDepth, jsonvalue.DefaultMaxDepth)
	}
	if DefaultJSONValues != jsonvalue.DefaultMaxValues {
		t.Errorf("DefaultJSONValues = %d, jsonvalue.DefaultMaxValues = %d", DefaultJSONValues, jsonvalue.DefaultMaxValues)
	}
}
