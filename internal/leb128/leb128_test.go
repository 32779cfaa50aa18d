package leb128

import (
	"errors"
	"math"
	"testing"
)

func TestReadU32(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    uint32
		wantN   int
		wantErr error
	}{
		{"zero", []byte{0x00}, 0, 1, nil},
		{"one byte", []byte{0x7f}, 127, 1, nil},
		{"two bytes", []byte{0x80, 0x01}, 128, 2, nil},
		{"padded zero", []byte{0x80, 0x80, 0x80, 0x80, 0x00}, 0, 5, nil},
		{"max", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, math.MaxUint32, 5, nil},
		{"bits beyond 32", []byte{0xff, 0xff, 0xff, 0xff, 0x1f}, 0, 0, ErrMalformed},
		{"six bytes", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 0, 0, ErrMalformed},
		{"truncated", []byte{0x80}, 0, 0, ErrTruncated},
		{"empty", nil, 0, 0, ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, n, err := ReadU32(tt.in, 0)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if err == nil && (got != tt.want || n != tt.wantN) {
				t.Errorf("ReadU32(% x) = %d, %d; want %d, %d", tt.in, got, n, tt.want, tt.wantN)
			}
		})
	}
}

func TestReadU64(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		want    uint64
		wantErr error
	}{
		{"beyond 32 bits", []byte{0x80, 0x80, 0x80, 0x80, 0x10}, 1 << 32, nil},
		{"max", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, math.MaxUint64, nil},
		{"bits beyond 64", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03}, 0, ErrMalformed},
		{"truncated", []byte{0xff, 0xff}, 0, ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := ReadU64(tt.in, 0)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if err == nil && got != tt.want {
				t.Errorf("ReadU64(% x) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}

func TestReadSigned(t *testing.T) {
	tests := []struct {
		name    string
		in      []byte
		bits    uint
		want    int64
		wantErr error
	}{
		{"minus one", []byte{0x7f}, 32, -1, nil},
		{"63", []byte{0x3f}, 32, 63, nil},
		{"64 needs two bytes", []byte{0xc0, 0x00}, 32, 64, nil},
		{"-64", []byte{0x40}, 32, -64, nil},
		{"max int32", []byte{0xff, 0xff, 0xff, 0xff, 0x07}, 32, math.MaxInt32, nil},
		{"min int32", []byte{0x80, 0x80, 0x80, 0x80, 0x78}, 32, math.MinInt32, nil},
		{"int32 overflow", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 32, 0, ErrMalformed},
		{"empty block type", []byte{0x40}, 33, -64, nil},
		{"type index 2^32-1 as s33", []byte{0xff, 0xff, 0xff, 0xff, 0x0f}, 33, math.MaxUint32, nil},
		{"min int64", []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}, 64, math.MinInt64, nil},
		{"max int64", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}, 64, math.MaxInt64, nil},
		{"int64 bad last byte", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 64, 0, ErrMalformed},
		{"truncated", []byte{0xff}, 64, 0, ErrTruncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := ReadSigned(tt.in, 0, tt.bits)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error %v, want %v", err, tt.wantErr)
			}
			if err == nil && got != tt.want {
				t.Errorf("ReadSigned(% x, %d) = %d, want %d", tt.in, tt.bits, got, tt.want)
			}
		})
	}
}

func TestAppendRoundTrip(t *testing.T) {
	for _, v := range []uint32{0, 1, 63, 64, 127, 128, 1 << 14, 1<<21 - 1, 1 << 28, math.MaxUint32} {
		got, n, err := ReadU32(AppendU32(nil, v), 0)
		if err != nil || got != v || n != len(AppendU32(nil, v)) {
			t.Errorf("ReadU32(AppendU32(%d)) = %d, %d, %v", v, got, n, err)
		}
	}
	for _, v := range []int32{0, 1, -1, 63, -64, 64, -65, 10000, math.MaxInt32, math.MinInt32} {
		got, _, err := ReadSigned(AppendS32(nil, v), 0, 32)
		if err != nil || got != int64(v) {
			t.Errorf("ReadSigned(AppendS32(%d)) = %d, %v", v, got, err)
		}
	}
}
