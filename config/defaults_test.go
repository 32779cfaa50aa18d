package config

import (
	"reflect"
	"testing"
	"time"

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

// TestWithDefaultsFillsEveryField: App.WithDefaults leaves no field of
// limits, server, idempotency and authFailures at zero (a new setting
// without a default fails here), and keeps the fields that are set.
func TestWithDefaultsFillsEveryField(t *testing.T) {
	filled := App{}.WithDefaults()
	for _, member := range []struct {
		name  string
		value any
	}{{"limits", filled.Limits}, {"server", filled.Server}, {"idempotency", filled.Idempotency}, {"authFailures", filled.AuthFailures}} {
		v := reflect.ValueOf(member.value)
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() && v.Field(i).IsZero() && f.Type.Kind() != reflect.String {
				t.Errorf("%s.%s has no default: zero after WithDefaults", member.name, f.Name)
			}
		}
	}
	if filled.Limits.BodyBytes != DefaultBodyBytes || time.Duration(filled.Server.IdleTimeout) != DefaultIdleTimeout || time.Duration(filled.Idempotency.Replay) != DefaultIdempotencyReplay {
		t.Errorf("defaults: limits %+v, server %+v, idempotency %+v", filled.Limits, filled.Server, filled.Idempotency)
	}
	set := App{Limits: Limits{BodyBytes: 10, Timeout: Duration(time.Second)}, Idempotency: Idempotency{Lease: Duration(time.Minute)}}.WithDefaults()
	if set.Limits.BodyBytes != 10 || set.Limits.Timeout != Duration(time.Second) || set.Idempotency.Lease != Duration(time.Minute) {
		t.Errorf("WithDefaults changed set fields: limits %+v, idempotency %+v", set.Limits, set.Idempotency)
	}
}
