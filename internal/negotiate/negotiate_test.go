package negotiate

import (
	"strings"
	"testing"
)

const (
	// rfc9110Accept is the example header of RFC 9110 §12.5.1.
	rfc9110Accept = "text/*;q=0.3, text/plain;q=0.7, text/plain;format=flowed, text/plain;format=fixed;q=0.4, */*;q=0.5"
	// rfc7231Accept is the example header of RFC 7231 §5.3.2, which RFC 9110 replaced.
	rfc7231Accept = "text/*;q=0.3, text/html;q=0.7, text/html;level=1, text/html;level=2;q=0.4, */*;q=0.5"
	// browserAccept is what Chrome and Firefox send for a navigation.
	browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
)

// qualityOf is the quality that accept gives to offer, as a weight in [0, 1].
func qualityOf(t *testing.T, accept, offer string) float64 {
	t.Helper()
	rs, e := parseAccept(nil, accept)
	if e.want != "" {
		t.Fatalf("parseAccept(%q): %v", accept, e.err(accept))
	}
	return float64(quality(rs, offer)) / 1000
}

func TestQualityRFC9110Example(t *testing.T) {
	tests := []struct {
		offer string
		want  float64
	}{
		{"text/plain;format=flowed", 1},
		{"text/plain", 0.7},
		{"text/html", 0.3},
		{"image/jpeg", 0.5},
		{"text/plain;format=fixed", 0.4},
		// RFC 9110 Table 5 says 0.7, a leftover of the RFC 7231 example, whose header had "text/html;q=0.7".
		// Here only "text/*;q=0.3" and "*/*;q=0.5" match and the more specific one wins: 0.3, as verified
		// erratum 7138 (https://www.rfc-editor.org/errata/eid7138) corrects it.
		{"text/html;level=3", 0.3},
	}
	for _, tt := range tests {
		t.Run(tt.offer, func(t *testing.T) {
			if got := qualityOf(t, rfc9110Accept, tt.offer); got != tt.want {
				t.Errorf("quality of %q = %v, want %v", tt.offer, got, tt.want)
			}
		})
	}
}

func TestQualityRFC7231Example(t *testing.T) {
	tests := []struct {
		offer string
		want  float64
	}{
		{"text/html;level=1", 1},
		{"text/html", 0.7},
		{"text/plain", 0.3},
		{"image/jpeg", 0.5},
		{"text/html;level=2", 0.4},
		{"text/html;level=3", 0.7}, // "text/html;q=0.7" is the most specific match
	}
	for _, tt := range tests {
		t.Run(tt.offer, func(t *testing.T) {
			if got := qualityOf(t, rfc7231Accept, tt.offer); got != tt.want {
				t.Errorf("quality of %q = %v, want %v", tt.offer, got, tt.want)
			}
		})
	}
}

func TestQualityPrecedence(t *testing.T) {
	tests := []struct {
		name, accept, offer string
		want                float64
	}{
		{"type/subtype beats type/* written later", "text/csv;q=0.2, text/*;q=0.9", "text/csv", 0.2},
		{"type/* beats */* written later", "image/*;q=0.2, */*", "image/png", 0.2},
		{"parameters beat none", "text/csv, text/csv;charset=utf-8;q=0.4", "text/csv;charset=utf-8", 0.4},
		{"more parameters beat fewer", "text/csv;charset=utf-8;q=0.4, text/csv;header=present;charset=utf-8;q=0.6", "text/csv;charset=utf-8;header=present", 0.6},
		{"a parameter the offer lacks does not match", "text/csv;header=present;q=0.4, text/csv;q=0.6", "text/csv", 0.6},
		{"a different parameter value does not match", "text/plain;format=fixed;q=0.4, text/*;q=0.2", "text/plain;format=flowed", 0.2},
		{"first of equally specific ranges", "text/csv;q=0.3, text/csv;q=0.9", "text/csv", 0.3},
		{"first of equally specific refusals", "text/csv;q=0, text/csv", "text/csv", 0},
		{"no match is 0", "text/csv", "application/json", 0},
		{"offer parameter names ignore case", "text/plain;Format=flowed;q=0.5", "text/plain; FORMAT=flowed", 0.5},
		{"charset values ignore case", "text/csv;charset=UTF-8;q=0.5", "text/csv; charset=utf-8", 0.5},
		{"other values keep case", "text/plain;format=FLOWED;q=0.5, */*;q=0.1", "text/plain;format=flowed", 0.1},
		{"quoted and token values are equal", `text/plain;format="flowed";q=0.5`, "text/plain;format=flowed", 0.5},
		{"quoted offer value equals token", "text/plain;format=flowed;q=0.5", `text/plain;format="flowed"`, 0.5},
		{"escaped quoted values are equal", `text/plain;x="a\"b";q=0.5`, `text/plain;x="a\"b"`, 0.5},
		{"quoted prefix is not equal", `text/plain;x="ab";q=0.5, */*;q=0.1`, `text/plain;x=abc`, 0.1},
		{"malformed offer matches */*", "*/*;q=0.3", "png", 0.3},
		{"malformed offer does not match type/*", "image/*;q=0.3", "image/", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := qualityOf(t, tt.accept, tt.offer); got != tt.want {
				t.Errorf("quality of %q under %q = %v, want %v", tt.offer, tt.accept, got, tt.want)
			}
		})
	}
}

// chooseCase is one row of TestChoose; FuzzChoose starts from these rows.
type chooseCase struct {
	name   string
	accept string
	offers []string
	want   string
	wantOK bool
}

var (
	images = []string{"image/png", "image/svg+xml"}
	data   = []string{"application/json", "text/csv"}
)

var chooseCases = []chooseCase{
	{"absent header gives the first offer", "", images, "image/png", true},
	{"only empty elements give the first offer", " , ,\t", data, "application/json", true},
	{"no offers", "*/*", nil, "", false},
	{"any", "*/*", images, "image/png", true},
	{"curl", "*/*", data, "application/json", true},
	{"exact", "image/svg+xml", images, "image/svg+xml", true},
	{"type wildcard", "image/*", []string{"application/json", "image/svg+xml"}, "image/svg+xml", true},
	{"type wildcard refuses other types", "image/*", data, "", false},
	{"no match", "text/html", data, "", false},
	{"higher q wins", "application/json;q=0.5, text/csv", data, "text/csv", true},
	{"q compares thousandths", "application/json;q=0.5, text/csv;q=0.501", data, "text/csv", true},
	{"ties keep declaration order, not header order", "text/csv, application/json", data, "application/json", true},
	{"wildcard ties keep declaration order", "*/*;q=0.8", []string{"text/csv", "application/json"}, "text/csv", true},
	{"q=0 refuses despite */*", "image/png;q=0, */*", images, "image/svg+xml", true},
	{"q=0 refuses despite an earlier */*", "*/*, image/png;q=0", images, "image/svg+xml", true},
	{"q=0 on a type wildcard", "image/*;q=0, */*;q=0.1", []string{"image/png", "text/csv"}, "text/csv", true},
	{"q=0.000 refuses", "image/png;q=0.000, image/svg+xml;q=0.001", images, "image/svg+xml", true},
	{"all refused", "image/png;q=0, image/svg+xml;q=0", images, "", false},
	{"everything refused", "*/*;q=0", images, "", false},
	{"browser, images", browserAccept, images, "image/png", true},
	{"browser, data", browserAccept, data, "application/json", true},
	{"browser, html", browserAccept, []string{"application/json", "text/html"}, "text/html", true},
	{"browser, xml", browserAccept, []string{"application/json", "application/xml"}, "application/xml", true},
	{"browser image request", "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8", images, "image/png", true},
	{"upper-case range", "IMAGE/SVG+XML", images, "image/svg+xml", true},
	{"mixed-case offer is returned as declared", "text/csv", []string{"application/json", "Text/CSV"}, "Text/CSV", true},
	{"upper-case Q", "image/png;Q=0, */*", images, "image/svg+xml", true},
	{"range parameter required", "text/csv;header=present", data, "", false},
	{"offer parameters do not hinder", "text/csv", []string{"application/json", "text/csv; charset=utf-8"}, "text/csv; charset=utf-8", true},
	{"parameterised range decides", "text/csv;charset=utf-8;q=0.9, text/csv;q=0.1, application/json;q=0.5", []string{"application/json", "text/csv;charset=utf-8"}, "text/csv;charset=utf-8", true},
	{"charset value ignores case", "text/csv;charset=UTF-8", []string{"application/json", "text/csv; charset=utf-8"}, "text/csv; charset=utf-8", true},
	{"whitespace", " \t image/png ; q=0 ,\t*/*\t ", images, "image/svg+xml", true},
	{"empty list elements", "a/b,,c/d", []string{"x/y", "c/d"}, "c/d", true},
	{"leading and trailing empty elements", ", ,image/svg+xml,,", images, "image/svg+xml", true},
	{"empty parameters", "image/png;;q=0;, */*;", images, "image/svg+xml", true},
	{"accept-ext after the weight", "image/png;q=0.5;ext=1;flag, image/svg+xml;q=0.4", images, "image/png", true},
	{"header joined from two lines", "image/png;q=0.1, image/svg+xml", images, "image/svg+xml", true},
	{"malformed: no subtype", "text/", data, "application/json", true},
	{"malformed: no media range", ";q=0.5", data, "application/json", true},
	{"malformed: */html", "*/html", data, "application/json", true},
	{"malformed: q=2", "q=2", data, "application/json", true},
	{"malformed: garbage", "\x00\xff garbage (", data, "application/json", true},
	{"malformed: q above 1", "text/csv;q=1.5", data, "application/json", true},
	{"malformed: q not a number", "text/csv;q=abc", data, "application/json", true},
	{"malformed: q with four decimals", "text/csv;q=0.1234", data, "application/json", true},
	{"malformed: q twice", "text/csv;q=0.5;q=0.6", data, "application/json", true},
	{"malformed: quoted q", `text/csv;q="0.5"`, data, "application/json", true},
	{"malformed: open quote", `text/csv;a="b`, data, "application/json", true},
	{"malformed: parameter without value", "text/csv;a", data, "application/json", true},
	{"malformed: spaces around =", "text/csv; a = b", data, "application/json", true},
	{"malformed: missing comma", "text/html text/csv", data, "application/json", true},
	{"malformed anywhere ignores the whole header", "image/png;q=0, */*, @", images, "image/png", true},
}

func TestChoose(t *testing.T) {
	for _, tt := range chooseCases {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Choose(tt.accept, tt.offers)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("Choose(%q, %q) = %q, %v; want %q, %v", tt.accept, tt.offers, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestChooseManyRanges checks headers longer than the ranges Choose keeps on the stack.
func TestChooseManyRanges(t *testing.T) {
	tests := []struct {
		name   string
		ranges int
	}{
		{"fits on the stack", stackRanges},
		{"one more", stackRanges + 1},
		{"many more", 10 * stackRanges},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := make([]string, tt.ranges)
			for i := range parts {
				parts[i] = "application/x-other;q=0.9"
			}
			parts[len(parts)-1] = "text/csv;q=0.1"
			accept := strings.Join(parts, ", ")
			if got, ok := Choose(accept, data); got != "text/csv" || !ok {
				t.Errorf("Choose(%d ranges ending in text/csv) = %q, %v; want %q, true", tt.ranges, got, ok, "text/csv")
			}
		})
	}
}

func TestChooseAllocations(t *testing.T) {
	tests := []struct {
		name   string
		accept string
		offers []string
	}{
		{"browser", browserAccept, data},
		{"rfc 9110 example", rfc9110Accept, []string{"text/html;level=3", "text/plain;format=flowed"}},
		{"quoted parameters", `text/plain;format="flowed", */*;q=0.1`, []string{"text/csv", `text/plain; format="flowed"`}},
		{"malformed", "text/csv; a = b", data},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := testing.AllocsPerRun(100, func() { Choose(tt.accept, tt.offers) }); got != 0 {
				t.Errorf("Choose(%q) allocates %v times per call, want 0", tt.accept, got)
			}
		})
	}
}

func BenchmarkChoose(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := Choose(browserAccept, data); !ok {
			b.Fatal("Choose(browserAccept) = _, false")
		}
	}
}
