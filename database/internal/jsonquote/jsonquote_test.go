package jsonquote_test

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/wasmendpoints/endpoints/database/internal/jsonquote"
)

// TestAppendIsJSONText: String and Bytes append what jsontext.AppendQuote appends,
// for every single byte, texts with escapes and multi-byte or invalid
// UTF-8, and random texts of bytes picked mostly from those that need
// care, as a string and as []byte, after what dst held.
func TestAppendIsJSONText(t *testing.T) {
	texts := []string{"", "Grace Hopper", "grace@example.com", `say "hi"`, `C:\dir`, "tab\there", "line\nbreak", "\x00", "\x7f",
		"é", "日本", "\u2028", "\xff", "a\xc3", "\xed\xa0\x80", "<&>", "😀"}
	for c := range 256 {
		texts = append(texts, string([]byte{byte(c)}), "ab"+string([]byte{byte(c)})+"cd")
	}
	r := rand.New(rand.NewPCG(1, 2))
	picks := []byte("a\"\\\x00\x1f\x7f\x80\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80\xff ")
	for range 2000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = picks[r.IntN(len(picks))]
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		want, _ := jsontext.AppendQuote([]byte("x"), s)
		if got := jsonquote.String([]byte("x"), s); !bytes.Equal(got, want) {
			t.Errorf("String(%q) = %q, want %q", s, got, want)
		}
		if got := jsonquote.Bytes([]byte("x"), []byte(s)); !bytes.Equal(got, want) {
			t.Errorf("Bytes(%q) = %q, want %q", s, got, want)
		}
	}
}

// BenchmarkAppend compares String with jsontext.AppendQuote on the
// strings of a read of a user by id (its columns and text values), in
// turn, five rounds: their times per text and the ratio string/jsontext.
//
//	go test ./database/internal/jsonquote -run '^$' -bench Append -benchtime 1000000x
func BenchmarkAppend(b *testing.B) {
	texts := []string{"id", "name", "email", "Grace Hopper", "grace@example.com"}
	dst := make([]byte, 0, 256)
	per := b.N/5 + 1
	var took [2]time.Duration
	for round := range 5 {
		for i, quote := range []func([]byte, string) []byte{
			jsonquote.String,
			func(dst []byte, s string) []byte { dst, _ = jsontext.AppendQuote(dst, s); return dst },
		} {
			began := time.Now()
			for range per {
				dst = dst[:0]
				for _, s := range texts {
					dst = quote(dst, s)
				}
			}
			if round > 0 {
				took[i] += time.Since(began)
			}
		}
	}
	texts5 := float64(4 * per * len(texts))
	b.ReportMetric(float64(took[0].Nanoseconds())/texts5, "string-ns/text")
	b.ReportMetric(float64(took[1].Nanoseconds())/texts5, "jsontext-ns/text")
	b.ReportMetric(float64(took[0])/float64(took[1]), "string/jsontext")
	b.ReportMetric(0, "ns/op")
}
