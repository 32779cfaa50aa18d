package endpoints

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// oldScanResult is scanResult as it was before the row loop decoded
// strings and integers itself: every value through eachElement and its
// column's setter, a blob found by its position in a set. It is the
// reference the fast path must agree with.
func oldScanResult[T any](db string, data []byte) ([]T, error) {
	t := reflect.TypeFor[T]()
	var columns, blobsJSON, rows []byte
	err := eachMember(data, func(key string, value []byte) error {
		switch key {
		case "columns":
			columns = value
		case "blobs":
			blobsJSON = value
		case "rows":
			rows = value
		}
		return nil
	})
	if err == nil && (columns == nil || rows == nil) {
		err = fmt.Errorf("it lacks %q or %q", "columns", "rows")
	}
	if err != nil {
		return nil, fmt.Errorf("endpoints: database %q: reading the result: %w", db, err)
	}
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("endpoints: ScanAll: %s is not a struct", t)
	}
	p, names, err := rawScanPlan(t, columns)
	if err != nil {
		return nil, err
	}
	blobs := map[blobPos]bool{}
	if blobsJSON != nil {
		list, err := parseBlobs(blobsJSON, len(p.plan))
		if err != nil {
			return nil, fmt.Errorf("endpoints: database %q: reading the result: %w", db, err)
		}
		for _, b := range list {
			blobs[b] = true
		}
	}
	out, err := oldScanRows[T](t, p.plan, rows, blobs)
	if err != nil && names == nil {
		names, _ = columnNames(columns)
	}
	if e, ok := err.(*scanError); ok {
		return nil, fmt.Errorf("endpoints: ScanAll: row %d, column %q into %s: %w", e.row, names[e.column], t, e.err)
	}
	return out, err
}

func oldScanRows[T any](t reflect.Type, plan []columnScan, rows []byte, blobs map[blobPos]bool) ([]T, error) {
	var out []T
	r := 0
	err := eachElement(rows, func(row []byte) error {
		var zero T
		out = append(out, zero)
		base := unsafe.Pointer(&out[r])
		r++
		c := 0
		err := eachElement(row, func(raw []byte) error {
			if c >= len(plan) {
				return fmt.Errorf("endpoints: ScanAll: row %d of %s has more values than the %d columns", r, t, len(plan))
			}
			if err := plan[c].set(unsafe.Add(base, plan[c].offset), raw, blobs[blobPos{r - 1, c}]); err != nil {
				return &scanError{row: r, column: c, err: err}
			}
			c++
			return nil
		})
		if err == nil && c != len(plan) {
			err = fmt.Errorf("endpoints: ScanAll: row %d of %s has %d values for %d columns", r, t, c, len(plan))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []T{}
	}
	return out, nil
}

type (
	scanName string
	scanID   int32
)

// scanRow has a field of every kind the row loop decodes itself, and of
// kinds it leaves to the setters.
type scanRow struct {
	S   string    `db:"s"`
	I   int       `db:"i"`
	I8  int8      `db:"i8"`
	I16 int16     `db:"i16"`
	I32 int32     `db:"i32"`
	I64 int64     `db:"i64"`
	PS  *string   `db:"ps"`
	PI  *int64    `db:"pi"`
	PI8 *int8     `db:"pi8"`
	N   scanName  `db:"n"`
	NI  scanID    `db:"ni"`
	PN  *scanName `db:"pn"`
	U   uint16    `db:"u"`
	F   float64   `db:"f"`
	B   bool      `db:"b"`
	Bs  []byte    `db:"bs"`
	T   time.Time `db:"t"`
	Raw json.RawMessage
}

func ptr[T any](v T) *T { return &v }

// scanCases are query results for scanResult, the seeds of
// FuzzScanResult; want is the first row, or err a part of the error.
var scanCases = []struct {
	name string
	data string
	want scanRow
	rows int
	err  string
}{
	{"no rows", `{"columns":["s"],"rows":[]}`, scanRow{}, 0, ""},
	{"strings", `{"columns":["s","n","ps","pn"],"rows":[["Grace Hopper","","grace@example.com","x"]]}`, scanRow{S: "Grace Hopper", PS: ptr("grace@example.com"), PN: ptr(scanName("x"))}, 1, ""},
	{"escapes", `{"columns":["s","ps"],"rows":[["a\"b\\c\u00e9\n","\ud83d\ude00"]]}`, scanRow{S: "a\"b\\cé\n", PS: ptr("😀")}, 1, ""},
	{"invalid UTF-8 becomes U+FFFD", "{\"columns\":[\"s\"],\"rows\":[[\"a\xffb\"]]}", scanRow{S: "a\ufffdb"}, 1, ""},
	{"a number into a string", `{"columns":["s","n"],"rows":[[12.5,true]]}`, scanRow{S: "12.5", N: "true"}, 1, ""},
	{"int64 edges", `{"columns":["i","i64"],"rows":[[9223372036854775807,-9223372036854775808]]}`, scanRow{I: 9223372036854775807, I64: -9223372036854775808}, 1, ""},
	{"18 and 19 digits", `{"columns":["i","i64","pi"],"rows":[[999999999999999999,-999999999999999999,1000000000000000000]]}`, scanRow{I: 999999999999999999, I64: -999999999999999999, PI: ptr(int64(1000000000000000000))}, 1, ""},
	{"small integers at their edges", `{"columns":["i8","i16","i32","ni","pi8"],"rows":[[-128,32767,-2147483648,2147483647,127]]}`, scanRow{I8: -128, I16: 32767, I32: -2147483648, NI: 2147483647, PI8: ptr(int8(127))}, 1, ""},
	{"a quoted number (PostgreSQL numeric)", `{"columns":["i","pi"],"rows":[["12","-7"]]}`, scanRow{I: 12, PI: ptr(int64(-7))}, 1, ""},
	{"leading zeros and minus zero", `{"columns":["i","i64"],"rows":[[007,-0]]}`, scanRow{I: 7}, 1, ""},
	{"NULL into pointers", `{"columns":["ps","pi","pn","pi8"],"rows":[[null,null,null,null]]}`, scanRow{}, 1, ""},
	{"other types", `{"columns":["u","f","b","bs","t","raw"],"blobs":[[0,3]],"rows":[[65535,1.5e3,1,"AAEC","2026-01-02 03:04:05",{"k":[1]}]]}`, scanRow{U: 65535, F: 1500, B: true, Bs: []byte{0, 1, 2}, T: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Raw: json.RawMessage(`{"k":[1]}`)}, 1, ""},
	{"text into []byte is its bytes", `{"columns":["bs","s"],"rows":[["test","hello"]]}`, scanRow{Bs: []byte("test"), S: "hello"}, 1, ""},
	{"a number into []byte is its text", `{"columns":["bs"],"rows":[[12]]}`, scanRow{Bs: []byte("12")}, 1, ""},
	{"blobs into strings and []byte", `{"columns":["s","ps","n","pn","bs"],"blobs":[[0,0],[0,1],[0,2],[0,3],[0,4]],"rows":[["aGk=","aGk=","AA==","","dGVzdA=="]]}`, scanRow{S: "hi", PS: ptr("hi"), N: "\x00", PN: ptr(scanName("")), Bs: []byte("test")}, 1, ""},
	{"blobs and text in a column", `{"columns":["bs","s"],"blobs":[[1,0],[2,1]],"rows":[["dGVzdA==","dGVzdA=="],["dGVzdA==","dGVzdA=="],["test","aGk="]]}`, scanRow{Bs: []byte("dGVzdA=="), S: "dGVzdA=="}, 3, ""},
	{"blobs out of order, repeated", `{"columns":["s","bs"],"blobs":[[1,1],[0,0],[1,1]],"rows":[["aGk=","aGk="],["aGk=","aGk="]]}`, scanRow{S: "hi", Bs: []byte("aGk=")}, 2, ""},
	{"a blob past the rows", `{"columns":["s"],"blobs":[[0,0],[7,0]],"rows":[["aGk="]]}`, scanRow{S: "hi"}, 1, ""},
	{"a NULL blob", `{"columns":["bs","ps"],"blobs":[[0,0],[0,1]],"rows":[[null,null]]}`, scanRow{}, 1, ""},
	{"empty blobs", `{"columns":["s"],"blobs":[],"rows":[["aGk="]]}`, scanRow{S: "aGk="}, 1, ""},
	{"blobs after the rows", `{"columns":["s"],"rows":[["aGk="]],"blobs":[[0,0]]}`, scanRow{S: "hi"}, 1, ""},
	{"a second blobs member replaces the first", `{"columns":["s"],"blobs":[[0,0]],"rows":[["aGk="]],"blobs":[]}`, scanRow{S: "aGk="}, 1, ""},
	{"a blob into an integer", `{"columns":["i"],"blobs":[[0,0]],"rows":[["AQ=="]]}`, scanRow{}, 0, `row 1, column "i" into endpoints.scanRow: "AQ==" is not an integer that fits int`},
	{"a blob that is not base64", `{"columns":["s"],"blobs":[[0,0]],"rows":[["test!"]]}`, scanRow{}, 0, `row 1, column "s" into endpoints.scanRow: a blob that is not base64`},
	{"a blob that is not a string", `{"columns":["bs"],"blobs":[[0,0]],"rows":[[1]]}`, scanRow{}, 0, `a blob: got 1, want a string`},
	{"a blob column past the columns", `{"columns":["s"],"blobs":[[0,1]],"rows":[["a"]]}`, scanRow{}, 0, `reading the result: "blobs": got [0,1], want a [row, column] pair`},
	{"a blob position of one index", `{"columns":["s"],"blobs":[[0]],"rows":[["a"]]}`, scanRow{}, 0, `"blobs": got [0], want`},
	{"a blob position of three", `{"columns":["s"],"blobs":[[0,0,0]],"rows":[["a"]]}`, scanRow{}, 0, `"blobs": got [0,0,0], want`},
	{"a negative blob row", `{"columns":["s"],"blobs":[[-1,0]],"rows":[["a"]]}`, scanRow{}, 0, `"blobs": got [-1,0], want`},
	{"a blob row with a fraction", `{"columns":["s"],"blobs":[[1.0,0]],"rows":[["a"]]}`, scanRow{}, 0, `"blobs": got [1.0,0], want`},
	{"blobs not an array", `{"columns":["s"],"blobs":{},"rows":[["a"]]}`, scanRow{}, 0, `"blobs": invalid character '{'`},
	{"spaces", "{ \"columns\" : [ \"s\" , \"i\" ] , \"rows\" : [ [ \"a\" , 1 ] , [ \"b\" ,\t2 ]\n] }", scanRow{S: "a", I: 1}, 2, ""},
	{"many rows", `{"columns":["s","i"],"rows":[["a",1],["b",2],["c",3],["",4]]}`, scanRow{S: "a", I: 1}, 4, ""},
	{"int8 overflow", `{"columns":["i8"],"rows":[[128]]}`, scanRow{}, 0, `row 1, column "i8" into endpoints.scanRow: 128 is not an integer that fits int8`},
	{"int64 overflow", `{"columns":["i64"],"rows":[[9223372036854775808]]}`, scanRow{}, 0, `9223372036854775808 is not an integer that fits int64`},
	{"a fraction into an integer", `{"columns":["s","i"],"rows":[["a",1],["b",1.5]]}`, scanRow{}, 0, `row 2, column "i" into endpoints.scanRow: 1.5 is not an integer that fits int`},
	{"NULL into a string", `{"columns":["s"],"rows":[[null]]}`, scanRow{}, 0, `NULL cannot go into *string`},
	{"NULL into an integer", `{"columns":["i"],"rows":[[null]]}`, scanRow{}, 0, `NULL cannot go into *int`},
	{"too many values", `{"columns":["s"],"rows":[["a","b"]]}`, scanRow{}, 0, `row 1 of endpoints.scanRow has more values than the 1 columns`},
	{"too few values", `{"columns":["s","i"],"rows":[["a"]]}`, scanRow{}, 0, `row 1 of endpoints.scanRow has 1 values for 2 columns`},
	{"an unknown column", `{"columns":["nope"],"rows":[]}`, scanRow{}, 0, `the column "nope" goes into no field of endpoints.scanRow`},
	{"no rows member", `{"columns":["s"]}`, scanRow{}, 0, `it lacks "columns" or "rows"`},
	{"a row that is not an array", `{"columns":["s"],"rows":["a"]}`, scanRow{}, 0, `want an array`},
	{"a missing separator", `{"columns":["s","i"],"rows":[["a" 1]]}`, scanRow{}, 0, `want ',' or ']'`},
	{"truncated", `{"columns":["s"],"rows":[["a"]`, scanRow{}, 0, `unexpected end`},
	{"a quote in a number", `{"columns":["s","i"],"rows":[[0",0]]}`, scanRow{}, 0, `unexpected end`},
	{"a quote in a literal, in a string", `{"columns":["s","i"],"rows":[[0"x",1]]}`, scanRow{S: `0"x"`, I: 1}, 1, ""},
	{"truncated in a row", `{"columns":["i","s"],"rows":[[`, scanRow{}, 0, `unexpected end`},
	{"truncated after a value", `{"columns":["i","s"],"rows":[[1,`, scanRow{}, 0, `unexpected end`},
	{"rows before columns", `{"rows":[["a",1]],"columns":["s","i"]}`, scanRow{S: "a", I: 1}, 1, ""},
	{"a member after the rows", `{"columns":["s"],"rows":[["a"]],"next":{"k":[1]}}`, scanRow{S: "a"}, 1, ""},
	{"a second rows member replaces the first", `{"columns":["i"],"rows":[[null],[2]],"rows":[[3]]}`, scanRow{I: 3}, 1, ""},
	{"a second columns member replaces the first", `{"columns":["s"],"rows":[[1]],"columns":["i"]}`, scanRow{I: 1}, 1, ""},
	{"text after the result", `{"columns":["s"],"rows":[["a"]]}x`, scanRow{}, 0, `want the end of the value`},
}

// TestScanResult checks the rows scanResult and scanFirst decode, and
// that the way they were decoded before gives the same rows and errors.
func TestScanResult(t *testing.T) {
	for _, tc := range scanCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := scanResult[scanRow]("main", []byte(tc.data))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
			} else if err != nil || len(got) != tc.rows || (tc.rows > 0 && !reflect.DeepEqual(got[0], tc.want)) {
				t.Fatalf("got %d rows %+v, %v; want %d rows, the first %+v", len(got), got, err, tc.rows, tc.want)
			}
			compareScans(t, []byte(tc.data))
		})
	}
}

// TestScanResultOnce: a result laid out as the host writes it is scanned
// in one pass; any other layout is left to the second. Each result is
// scanned twice: first with its plan made or found by its columns, then
// with the plan used last (lastPlanAt), which must decide the same.
func TestScanResultOnce(t *testing.T) {
	for _, tc := range []struct {
		data string
		once bool
	}{
		{`{"columns":["s","i"],"rows":[["a",1],["b",2]]}`, true},
		{`{"columns":["s"],"rows":[]}`, true},
		{`{"columns":["s"],"rows":[["a"]],"next":1}`, true},
		{`{ "columns":["s"],"rows":[["a"]]}`, false},
		{`{"rows":[["a"]],"columns":["s"]}`, false},
		{`{"columns":["s"],"rows":[["a"]],"rows":[]}`, false},
		{`{"columns":["s"],"rows":[[null]]}`, false},
		{`{"columns":["s"],"rows":[["a"]]} x`, false},
		{`{"columns":["s","i"] ,"rows":[["a",1]]}`, false},
		{`{"columns":["s","i"],"rows" :[["a",1]]}`, false},
		{`{"columns":["s","i"],"rows":[["a",1]],"columns":["s"]}`, false},
		{`{"columns":["s","bs"],"blobs":[[0,1],[1,0]],"rows":[["a","AA=="],["aGk=","b"]]}`, true},
		{`{"columns":["s","bs"],"blobs":[[1,0],[0,1]],"rows":[["a","AA=="],["aGk=","b"]]}`, true},
		{`{"columns":["s"],"blobs":[],"rows":[["a"]]}`, true},
		{`{"columns":["s"],"blobs":[[0,0]] ,"rows":[["aGk="]]}`, false},
		{`{"columns":["s"],"blobs":[[0,1]],"rows":[["a"]]}`, false},
		{`{"columns":["s"],"blobs":[[0,0]],"rows":[["!"]]}`, false},
		{`{"columns":["s"],"rows":[["a"]],"blobs":[]}`, false},
		{`{"columns":["s"],"blobs":[],"rows":[["a"]],"blobs":[]}`, false},
	} {
		for _, pass := range []string{"first", "again"} {
			n := 0
			once := scanResultOnce(reflect.TypeFor[scanRow](), []byte(tc.data), func(*rawPlans) unsafe.Pointer {
				n++
				return unsafe.Pointer(new(scanRow))
			})
			if once != tc.once {
				t.Errorf("scanResultOnce(%s), %s = %v after %d rows, want %v", tc.data, pass, once, n, tc.once)
			}
		}
	}
}

// compareScans fails t when scanResult, scanFirst and oldScanResult
// disagree on data: the same rows, or the same error (the same message
// when data is valid JSON, whose errors are about values, not syntax).
func compareScans(t *testing.T, data []byte) {
	t.Helper()
	got, err := scanResult[scanRow]("main", data)
	want, wantErr := oldScanResult[scanRow]("main", data)
	if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("scanResult(%q) = %+v, %v; the old decoder %+v, %v", data, got, err, want, wantErr)
	}
	if err != nil && json.Valid(data) && err.Error() != wantErr.Error() {
		t.Fatalf("scanResult(%q): error %q; the old decoder %q", data, err, wantErr)
	}
	first, err := scanFirst[scanRow]("main", data)
	switch {
	case wantErr != nil:
		if err == nil || (json.Valid(data) && err.Error() != wantErr.Error()) {
			t.Fatalf("scanFirst(%q) = %+v, %v; the old decoder %v", data, first, err, wantErr)
		}
	case len(want) == 0:
		if !errors.Is(err, ErrNoRows) {
			t.Fatalf("scanFirst(%q) = %+v, %v; want ErrNoRows", data, first, err)
		}
	case err != nil || !reflect.DeepEqual(first, want[0]):
		t.Fatalf("scanFirst(%q) = %+v, %v; want %+v", data, first, err, want[0])
	}
}

// TestScanResultStringsStay: strings scanned from one result share
// allocations, which must not change when the buffer the result was read
// from, or later results, do; a long string gets its own.
func TestScanResultStringsStay(t *testing.T) {
	long := strings.Repeat("x", arenaChunk)
	var rows []string
	for i := range 300 {
		rows = append(rows, fmt.Sprintf(`["name %d",%d]`, i, i))
	}
	rows = append(rows, `["`+long+`",300]`)
	data := []byte(`{"columns":["s","i"],"rows":[` + strings.Join(rows, ",") + `]}`)
	got, err := scanResult[scanRow]("main", data)
	if err != nil || len(got) != 301 {
		t.Fatalf("got %d rows, %v", len(got), err)
	}
	clear(data)
	if _, err := scanResult[scanRow]("main", []byte(`{"columns":["s"],"rows":[["other"]]}`)); err != nil {
		t.Fatal(err)
	}
	for i, r := range got[:300] {
		if want := fmt.Sprintf("name %d", i); r.S != want || r.I != i {
			t.Fatalf("row %d = %+v, want %q", i, r, want)
		}
	}
	if got[300].S != long {
		t.Errorf("the long string changed: %.20q...", got[300].S)
	}
}

// FuzzScanResult compares scanResult with the old decoder on any result.
func FuzzScanResult(f *testing.F) {
	for _, tc := range scanCases {
		f.Add([]byte(tc.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		compareScans(t, data)
	})
}

// BenchmarkScanResult is the guest's decode of one user, natively.
func BenchmarkScanResult(b *testing.B) {
	type user struct {
		ID    int    `db:"id"`
		Name  string `db:"name"`
		Email string `db:"email"`
	}
	data := []byte(`{"columns":["id","name","email"],"rows":[[2,"Grace Hopper","grace@example.com"]]}`)
	b.Run("old", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := oldScanResult[user]("main", data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("new", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := scanFirst[user]("main", data); err != nil {
				b.Fatal(err)
			}
		}
	})
	var rows []string
	for i := range 50 {
		rows = append(rows, fmt.Sprintf(`[%d,"User number %d","user%d@example.com"]`, i, i, i))
	}
	many := []byte(`{"columns":["id","name","email"],"rows":[` + strings.Join(rows, ",") + `]}`)
	b.Run("old 50 rows", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := oldScanResult[user]("main", many); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("new 50 rows", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := scanResult[user]("main", many); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRowsParse reads results as the host writes them and as it never
// does: every row the width of the columns, or an error that says which.
func TestRowsParse(t *testing.T) {
	for _, tc := range []struct {
		name, result, err string
		columns           []string
		rows              int
	}{
		{"two rows", `{"columns":["id","name"],"rows":[[1,"a"],[2,"b"]]}`, "", []string{"id", "name"}, 2},
		{"no rows", `{"columns":["id"],"rows":[]}`, "", []string{"id"}, 0},
		{"spaces", ` { "columns" : [ "id" , "n\"x" ] , "rows" : [ [ 1 , null ] ] } `, "", []string{"id", `n"x`}, 1},
		{"a short row", `{"columns":["id","name"],"rows":[[1,"a"],[2]]}`, "rows: row 2 has 1 values, row 1 2", nil, 0},
		{"rows wider than the columns", `{"columns":["id"],"rows":[[1,"a"]]}`, "rows of 2 values for 1 columns", nil, 0},
		{"a row not an array", `{"columns":["id"],"rows":[1]}`, "a row: an array", nil, 0},
		{"a column not a string", `{"columns":[1],"rows":[]}`, "a string", nil, 0},
		{"cut short", `{"columns":["id"],"rows":[[1]`, "", nil, 0},
		// The outer scan finds where a row ends, not whether its values
		// are sound: a row's own syntax error is the result's.
		{"a row's values without a comma", `{"columns":["id"],"rows":[[1 2]]}`, "',' or ']'", nil, 0},
		{"a row's value missing", `{"columns":["id"],"rows":[[1,,]]}`, "a value", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r Rows
			err := r.parse([]byte(tc.result))
			switch {
			case tc.columns == nil && err == nil:
				t.Fatalf("parse(%s) = nil error, want one", tc.result)
			case tc.columns == nil && !strings.Contains(err.Error(), tc.err):
				t.Fatalf("parse(%s) = %v, want an error saying %q", tc.result, err, tc.err)
			case tc.columns != nil && err != nil:
				t.Fatalf("parse(%s) = %v", tc.result, err)
			case tc.columns != nil && (!slices.Equal(r.Columns(), tc.columns) || r.Len() != tc.rows):
				t.Fatalf("parse(%s): columns %q, %d rows; want %q, %d", tc.result, r.Columns(), r.Len(), tc.columns, tc.rows)
			}
		})
	}
}
