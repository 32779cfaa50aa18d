package jsonnum

import "testing"

func TestParse(t *testing.T) {
	tests := []struct {
		in       string
		ok       bool
		neg      bool
		digits   string
		point    int64
		integral bool
	}{
		{"0", true, false, "", 0, true},
		{"-0.000", true, true, "", 0, true},
		{"2", true, false, "2", 1, true},
		{"2.0", true, false, "2", 1, true},
		{"2e0", true, false, "2", 1, true},
		{"20e-1", true, false, "2", 1, true},
		{"-12.340e2", true, true, "1234", 4, true},
		{"-12.345e1", true, true, "12345", 3, false},
		{"-12.340e3", true, true, "1234", 5, true},
		{"0.001", true, false, "1", -2, false},
		{"1E+2", true, false, "1", 3, true},
		{"1e999999999999", true, false, "1", -1, true}, // saturated: at least MaxExponent
		{"01", false, false, "", 0, false},
		{"1.", false, false, "", 0, false},
		{".5", false, false, "", 0, false},
		{"1e", false, false, "", 0, false},
		{"+1", false, false, "", 0, false},
		{"1 ", false, false, "", 0, false},
		{"", false, false, "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			n, ok := Parse(tt.in)
			if ok != tt.ok {
				t.Fatalf("Parse(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			}
			if !ok {
				return
			}
			if got := string(n.AppendDigits(nil)); got != tt.digits || n.Neg != tt.neg || (!n.Zero() && n.Point != tt.point && !(tt.point == -1 && n.Point >= MaxExponent)) || n.Integral() != tt.integral {
				t.Errorf("Parse(%q) = neg %v, digits %q, point %d, integral %v; want %v, %q, %d, %v",
					tt.in, n.Neg, got, n.Point, n.Integral(), tt.neg, tt.digits, tt.point, tt.integral)
			}
		})
	}
}
