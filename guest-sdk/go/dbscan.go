package endpoints

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/wasmendpoints/endpoints/guest-sdk/go/internal/cell"
)

// This file is QueryAs's path for the SDK's own queriers: it scans the
// result's JSON straight into the structs, without the intermediate
// [Rows] (a copy of the result and a slice per row) or a per-call
// allocation of the plan's key. Function calls and allocations are what
// Go code pays most for inside WebAssembly (the garbage collector runs on
// the request's thread), so the common column types (strings, integers,
// pointers to them) are decoded in the row loop itself, and the strings
// of a result share a few allocations ([stringArena]); any other type,
// or a value of an unusual form, goes through the column's setter, which
// gives the same value and the same error as [ScanAll].

// queryAs runs the query on the SDK's database and scans the result in
// place: the result is read into dbBuf, which the next statement reuses,
// so each field copies what it keeps.
func queryAs[T any](d *Database, sql string, args []any) ([]T, error) {
	data, err := d.run("Query", sql, args, false)
	if err != nil {
		return nil, err
	}
	return scanResult[T](d.name, data)
}

// queryRowAs is queryAs for [QueryRowAs]: the first row, without a slice
// that grows with the rows. The other rows are scanned too, into a
// scratch value, so that a value that does not scan fails as it does for
// QueryAs.
func queryRowAs[T any](d *Database, sql string, args []any) (T, error) {
	data, err := d.run("Query", sql, args, false)
	if err != nil {
		var zero T
		return zero, err
	}
	return scanFirst[T](d.name, data)
}

// scanFirst is scanResult for one row: the first, [ErrNoRows] when there
// is none. The rows are scanned into the type's scratch value (rawPlans),
// the first copied out, so that no row is allocated.
func scanFirst[T any](db string, data []byte) (T, error) {
	var first, zero T
	var ps *rawPlans
	var row *T
	rows := 0
	err := scanResultInto(db, reflect.TypeFor[T](), data, func(p *rawPlans) unsafe.Pointer {
		if row == nil {
			ps = p
			if s := p.scratch.Swap(nil); s != nil {
				row = (*T)(unsafe.Pointer(s))
			} else {
				row = new(T)
			}
		} else if rows == 1 {
			first = *row
			*row = zero
		} else {
			*row = zero
		}
		rows++
		return unsafe.Pointer(row)
	}, func() {
		if row != nil {
			*row = zero
		}
		first, rows = zero, 0
	})
	if rows == 1 && err == nil {
		first = *row
	}
	if row != nil {
		*row = zero
		ps.scratch.Store((*byte)(unsafe.Pointer(row)))
	}
	switch {
	case err != nil:
		return zero, err
	case rows == 0:
		return zero, ErrNoRows
	}
	return first, nil
}

// scanResult scans every row of a query's result (abi.DBQueryResult) on
// database db into a T, as [Database.Query] and [ScanAll] do, with their
// errors.
func scanResult[T any](db string, data []byte) ([]T, error) {
	var out []T
	err := scanResultInto(db, reflect.TypeFor[T](), data, func(*rawPlans) unsafe.Pointer {
		var zero T
		out = append(out, zero)
		return unsafe.Pointer(&out[len(out)-1])
	}, func() { out = nil })
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []T{}
	}
	return out, nil
}

// scanResultInto scans every row of a query's result on database db into
// a value of the struct type t, at the address next returns for each row
// (given the plans of t). When the single pass over the result
// (scanResultOnce) gives up, reset undoes what next was asked for, and
// the rows are scanned again as [ScanAll] would, with its errors.
func scanResultInto(db string, t reflect.Type, data []byte, next func(*rawPlans) unsafe.Pointer, reset func()) error {
	if scanResultOnce(t, data, next) {
		return nil
	}
	reset()
	var columns, blobsJSON, rows []byte
	m := scanMembers(data)
	for m.next() {
		switch m.key {
		case "columns":
			columns = m.value
		case "blobs":
			blobsJSON = m.value
		case "rows":
			rows = m.value
		}
	}
	err := m.err
	if err == nil && (columns == nil || rows == nil) {
		err = fmt.Errorf("it lacks %q or %q", "columns", "rows")
	}
	if err != nil {
		return fmt.Errorf("endpoints: database %q: reading the result: %w", db, err)
	}
	if t.Kind() != reflect.Struct {
		return fmt.Errorf("endpoints: ScanAll: %s is not a struct", t)
	}
	p, names, err := rawScanPlan(t, columns)
	if err != nil {
		return err
	}
	var blobs []blobPos
	if blobsJSON != nil {
		if blobs, err = parseBlobs(blobsJSON, len(p.plan)); err != nil {
			return fmt.Errorf("endpoints: database %q: reading the result: %w", db, err)
		}
	}
	err = scanRows(t, p, rows, blobs, next)
	if e, ok := err.(*scanError); ok {
		if names == nil {
			// The column's name, for the error: decoded now, off
			// the fast path.
			names, _ = columnNames(columns)
		}
		return fmt.Errorf("endpoints: ScanAll: row %d, column %q into %s: %w", e.row, names[e.column], t, e.err)
	}
	return err
}

// The result as the host writes it begins so, and its rows follow the
// columns so, or the blobs' positions when there are blobs
// (abi.DBQueryResult).
const (
	resultHead  = `{"columns":`
	resultBlobs = `,"blobs":`
	resultRows  = `,"rows":`
)

// scanResultOnce scans a result laid out as the host writes it, its
// columns, the blobs' positions if any, then its rows, in one pass: the
// rows are scanned where they are, not first skipped over to find where
// they end, which would scan each of their strings twice. It gives up
// (false) on any other layout (spaces, another order, a second "columns",
// "blobs" or "rows" member, which would replace the first) and on any
// error, which scanResultInto's second pass then reports as [ScanAll]
// does.
func scanResultOnce(t reflect.Type, data []byte, next func(*rawPlans) unsafe.Pointer) bool {
	if t.Kind() != reflect.Struct || !hasPrefix(data, resultHead) {
		return false
	}
	p, end := lastPlanAt(t, data, len(resultHead))
	if p == nil {
		var err error
		if end, err = skipValue(data, len(resultHead)); err != nil {
			return false
		}
		if !hasPrefix(data[end:], resultRows) && !hasPrefix(data[end:], resultBlobs) {
			return false
		}
		if p, _, err = rawScanPlan(t, data[len(resultHead):end]); err != nil {
			return false
		}
	}
	var blobs []blobPos
	if hasPrefix(data[end:], resultBlobs) {
		start := end + len(resultBlobs)
		var err error
		if end, err = skipValue(data, start); err != nil || !hasPrefix(data[end:], resultRows) {
			return false
		}
		if blobs, err = parseBlobs(data[start:end], len(p.plan)); err != nil {
			return false
		}
	}
	end, err := scanRowsAt(t, p, data, end+len(resultRows), true, blobs, next)
	if err != nil {
		return false
	}
	// The members after the rows, which a later ABI may add.
	m := members{d: data, i: end, started: true}
	for m.next() {
		if m.key == "columns" || m.key == "rows" || m.key == "blobs" {
			return false
		}
	}
	return m.err == nil
}

// lastPlanAt is the plan used last when it is t's and data[i:] begins
// with the very columns it was made for, followed by the rows or the
// blobs' positions, and the index after those columns: the result of a
// query run again, whose columns need not be scanned to be delimited
// (skipValue would end them where they end in the plan, the same bytes).
// Else it is nil.
func lastPlanAt(t reflect.Type, data []byte, i int) (*rawPlan, int) {
	p := lastRawPlan.Load()
	if p == nil || p.t != t || !hasPrefix(data[i:], p.columns) {
		return nil, 0
	}
	if rest := data[i+len(p.columns):]; !hasPrefix(rest, resultRows) && !hasPrefix(rest, resultBlobs) {
		return nil, 0
	}
	return p, i + len(p.columns)
}

// hasPrefix reports whether d begins with s, without converting either.
func hasPrefix(d []byte, s string) bool {
	return len(d) >= len(s) && string(d[:len(s)]) == s
}

// scanError is a value scanRows could not scan: its row (from 1) and
// column (from 0).
type scanError struct {
	row, column int
	err         error
}

func (e *scanError) Error() string { return e.err.Error() }

// scanRows scans the "rows" array of a result, d, with plan, each row
// into the value at the address next returns; blobs are the positions of
// the blobs, as parseBlobs gives them.
func scanRows(t reflect.Type, p *rawPlan, d []byte, blobs []blobPos, next func(*rawPlans) unsafe.Pointer) error {
	end, err := scanRowsAt(t, p, d, 0, false, blobs, next)
	if err != nil {
		return err
	}
	return checkEnd(d, end)
}

// scanRowsAt is scanRows for the array at or after d[i]; it returns the
// index after the array. once is set for scanResultOnce's pass, whose
// rows were not delimited first: it refuses what that would have read
// otherwise.
func scanRowsAt(t reflect.Type, p *rawPlan, d []byte, i int, once bool, blobs []blobPos, next func(*rawPlans) unsafe.Pointer) (int, error) {
	plan := p.plan
	i = skipSpace(d, i)
	if i >= len(d) || d[i] != '[' {
		return 0, syntaxError(d, i, "an array")
	}
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == ']' {
		return i + 1, nil
	}
	arena := stringArena{rest: len(d) - i}
	for r := 1; ; r++ {
		if i >= len(d) || d[i] != '[' {
			// At the row's offset 0, as ScanAll's error says.
			return 0, syntaxError(d[i:], 0, "an array")
		}
		base := next(p.ps)
		i = skipSpace(d, i+1)
		c := 0
		if i < len(d) && d[i] == ']' {
			i++
		} else {
			for {
				if c >= len(plan) {
					return 0, fmt.Errorf("endpoints: ScanAll: row %d of %s has more values than the %d columns", r, t, len(plan))
				}
				// The positions are in order, each column one the
				// rows have: the next blob is the first not passed.
				blob := len(blobs) > 0 && blobs[0].row == r-1 && blobs[0].col == c
				if blob {
					blobs = blobs[1:]
				}
				end, err := plan[c].scan(unsafe.Add(base, plan[c].offset), d, i, &arena, once, blob)
				if err != nil {
					if e, ok := err.(*setError); ok {
						return 0, &scanError{row: r, column: c, err: e.err}
					}
					return 0, err
				}
				c++
				i = skipSpace(d, end)
				if i < len(d) && d[i] == ',' {
					i = skipSpace(d, i+1)
					continue
				}
				if i < len(d) && d[i] == ']' {
					i++
					break
				}
				return 0, syntaxError(d, i, "',' or ']'")
			}
		}
		if c != len(plan) {
			return 0, fmt.Errorf("endpoints: ScanAll: row %d of %s has %d values for %d columns", r, t, c, len(plan))
		}
		arena.rest = len(d) - i
		i = skipSpace(d, i)
		if i < len(d) && d[i] == ',' {
			i = skipSpace(d, i+1)
			continue
		}
		if i < len(d) && d[i] == ']' {
			return i + 1, nil
		}
		return 0, syntaxError(d, i, "',' or ']'")
	}
}

// setError is a value a column's setter refused, as opposed to bad JSON.
type setError struct{ err error }

func (e *setError) Error() string { return e.err.Error() }

// The kinds of column scanRows decodes itself.
const (
	fastNone      = iota // the setter decodes every value
	fastString           // a string kind
	fastInt              // a signed integer kind of columnScan.bits bits
	fastPtrString        // a pointer to a string kind: nil for NULL
	fastPtrInt           // a pointer to a signed integer kind
)

// fastKind is how scanRows decodes a field of type ft, and the integer's
// size. What it decodes is what the setter gives for the same value:
// scanValue takes these kinds by their kind, whatever their type's name.
func fastKind(ft reflect.Type) (kind, bits uint8) {
	if reflect.PointerTo(ft).Implements(scannerType) || ft.Implements(scannerType) {
		return fastNone, 0 // its Scan method decides
	}
	switch ft.Kind() {
	case reflect.String:
		return fastString, 0
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fastInt, uint8(ft.Bits())
	case reflect.Pointer:
		switch e := ft.Elem(); e.Kind() {
		case reflect.String:
			return fastPtrString, 0
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			return fastPtrInt, uint8(e.Bits())
		}
	}
	return fastNone, 0
}

var scannerType = reflect.TypeFor[scanner]()

// errStructural is scanResultOnce's reason to give up on a number or
// literal that holds a quote or a bracket: skipping the rows first, as
// the second pass does, would have read it as the start of a string or
// of a nested value.
var errStructural = errors.New("a quote or a bracket in a number or literal")

// scan decodes the value at d[i] (not a space) into the field at p and
// returns the index after it; blob says it is a blob, which the setter
// decodes. A value the setter refuses is a *setError; with once, a number
// or literal holding a quote or a bracket is errStructural.
func (cs *columnScan) scan(p unsafe.Pointer, d []byte, i int, arena *stringArena, once, blob bool) (int, error) {
	fast := cs.fast
	if i >= len(d) || blob {
		// The end of a truncated result (skipValue says so), or a blob.
		fast = fastNone
	}
	switch fast {
	case fastString:
		if end, s, ok := fastStringAt(d, i, arena); ok {
			*(*string)(p) = s
			return end, nil
		}
	case fastInt:
		if end, n, ok := fastIntAt(d, i, cs.bits); ok {
			storeInt(p, n, cs.bits)
			return end, nil
		}
	case fastPtrString:
		if end, ok := nullAt(d, i); ok {
			*(**string)(p) = nil
			return end, nil
		}
		if end, s, ok := fastStringAt(d, i, arena); ok {
			*(**string)(p) = &s
			return end, nil
		}
	case fastPtrInt:
		if end, ok := nullAt(d, i); ok {
			*(*unsafe.Pointer)(p) = nil
			return end, nil
		}
		if end, n, ok := fastIntAt(d, i, cs.bits); ok {
			q := newInt(cs.bits)
			storeInt(q, n, cs.bits)
			*(*unsafe.Pointer)(p) = q
			return end, nil
		}
	}
	end, err := skipValue(d, i)
	if err != nil {
		return 0, err
	}
	if once && d[i] != '"' && d[i] != '[' && d[i] != '{' && bytes.ContainsAny(d[i:end], `"[{`) {
		return 0, errStructural
	}
	if err := cs.set(p, d[i:end], blob); err != nil {
		return 0, &setError{err}
	}
	return end, nil
}

// fastStringAt decodes the string at d[i] when it has no escapes and is
// valid UTF-8 (a string the setter would decode just so); ok is false
// for any other value.
func fastStringAt(d []byte, i int, arena *stringArena) (end int, s string, ok bool) {
	if d[i] != '"' {
		return 0, "", false
	}
	end, escaped, err := scanString(d, i)
	if err != nil || escaped || !utf8.Valid(d[i+1:end-1]) {
		return 0, "", false
	}
	return end, arena.string(d[i+1 : end-1]), true
}

// fastIntAt decodes the integer at d[i] when it is at most 18 decimal
// digits, with an optional minus sign, and fits bits: every such value is
// exact and in range of an int64, so strconv.ParseInt, which the setter
// uses, gives the same. ok is false for any other value (NULL, a quoted
// number, a fraction, more digits), which the setter decodes or refuses.
func fastIntAt(d []byte, i int, bits uint8) (end int, n int64, ok bool) {
	j := i
	neg := d[j] == '-'
	if neg {
		j++
	}
	start := j
	for j < len(d) && j-start <= 18 && d[j] >= '0' && d[j] <= '9' {
		n = n*10 + int64(d[j]-'0')
		j++
	}
	if j == start || j-start > 18 {
		return 0, 0, false
	}
	if j < len(d) {
		switch d[j] {
		case ',', ']', ' ', '\t', '\n', '\r':
		default:
			return 0, 0, false
		}
	}
	if neg {
		n = -n
	}
	if bits < 64 && (n < -1<<(bits-1) || n > 1<<(bits-1)-1) {
		return 0, 0, false
	}
	return j, n, true
}

// nullAt reports whether d[i] starts a JSON null, and the index after it.
func nullAt(d []byte, i int) (int, bool) {
	if len(d)-i >= 4 && string(d[i:i+4]) == "null" {
		if j := i + 4; j == len(d) || d[j] == ',' || d[j] == ']' || d[j] == ' ' || d[j] == '\t' || d[j] == '\n' || d[j] == '\r' {
			return j, true
		}
	}
	return 0, false
}

// storeInt stores n, which fits, in the signed integer of bits bits at p.
func storeInt(p unsafe.Pointer, n int64, bits uint8) {
	switch bits {
	case 8:
		*(*int8)(p) = int8(n)
	case 16:
		*(*int16)(p) = int16(n)
	case 32:
		*(*int32)(p) = int32(n)
	default:
		*(*int64)(p) = n
	}
}

// newInt allocates a signed integer of bits bits.
func newInt(bits uint8) unsafe.Pointer {
	switch bits {
	case 8:
		return unsafe.Pointer(new(int8))
	case 16:
		return unsafe.Pointer(new(int16))
	case 32:
		return unsafe.Pointer(new(int32))
	}
	return unsafe.Pointer(new(int64))
}

// arenaChunk is the most a stringArena allocates at once; a string longer
// than a quarter of it gets an allocation of its own. A string the
// handler keeps holds its chunk, so the chunk is small.
const arenaChunk = 4096

// stringArena makes the strings of one result from a few allocations
// rather than one each: a chunk holds the bytes of several strings, which
// are never changed once written.
type stringArena struct {
	buf  []byte
	rest int // an upper bound on the string bytes still to come: the result's bytes left
}

// string returns a string of b's bytes.
func (a *stringArena) string(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > cap(a.buf)-len(a.buf) {
		if len(b) > arenaChunk/4 {
			return string(b)
		}
		a.buf = make([]byte, 0, max(len(b), min(a.rest, arenaChunk)))
	}
	start := len(a.buf)
	a.buf = append(a.buf, b...)
	return unsafe.String(&a.buf[start], len(b))
}

// columnNames decodes a result's "columns" array.
func columnNames(columns []byte) ([]string, error) {
	var names []string
	err := eachElement(columns, func(v []byte) error {
		s, err := decodeString(v)
		names = append(names, s)
		return err
	})
	return names, err
}

// maxRawPlans bounds the scan plans kept per struct type: one per
// distinct column list, which a handler's fixed queries keep few. Past
// it, a plan is made for each call.
const maxRawPlans = 16

// rawPlans are the scan plans of one struct type, keyed by the JSON text
// of the result's "columns" array, which is compared without allocating.
// The slice is replaced, never changed.
type rawPlans struct {
	entries cell.Pointer[[]*rawPlan]
	mu      sync.Mutex // serializes additions
	// scratch is a zero value of the type that scanFirst scans a row
	// into before copying it out, so that the row costs no allocation
	// (the setters' indirect calls make whatever they write into
	// escape); nil until made, and while a scan holds it.
	scratch cell.Pointer[byte]
}

// rawPlan is the scan plan of type t (whose plans are ps) for a result's
// columns.
type rawPlan struct {
	t       reflect.Type
	ps      *rawPlans
	columns string
	plan    []columnScan
}

var (
	rawScanPlans sync.Map // reflect.Type -> *rawPlans
	// lastRawPlan is the plan used last: a handler's query usually
	// finds it there, without the map's hashing of the type.
	lastRawPlan cell.Pointer[rawPlan]
)

// rawScanPlan is the scan plan of t for a result whose "columns" array is
// columns, and the plans of t; names are the columns, decoded when the
// plan was made here (nil when it came from the cache).
func rawScanPlan(t reflect.Type, columns []byte) (*rawPlan, []string, error) {
	if p := lastRawPlan.Load(); p != nil && p.t == t && p.columns == string(columns) {
		return p, nil, nil
	}
	v, ok := rawScanPlans.Load(t)
	if !ok {
		v, _ = rawScanPlans.LoadOrStore(t, &rawPlans{})
	}
	ps := v.(*rawPlans)
	if entries := ps.entries.Load(); entries != nil {
		for _, p := range *entries {
			if p.columns == string(columns) {
				lastRawPlan.Store(p)
				return p, nil, nil
			}
		}
	}
	names, err := columnNames(columns)
	if err != nil {
		return nil, nil, fmt.Errorf("reading the result's columns: %w", err)
	}
	plan, err := scanPlanFor(t, names)
	if err != nil {
		return nil, nil, err
	}
	p := &rawPlan{t: t, ps: ps, columns: string(columns), plan: plan}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var entries []*rawPlan
	if old := ps.entries.Load(); old != nil {
		entries = *old
	}
	if len(entries) < maxRawPlans {
		next := append(entries[:len(entries):len(entries)], p)
		ps.entries.Store(&next)
		lastRawPlan.Store(p)
	}
	return p, names, nil
}
