package endpoints

import (
	"fmt"
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// This file is QueryAs's path for the SDK's own queriers: it scans the
// result's JSON straight into the structs, without the intermediate
// [Rows] (a copy of the result and a slice per row) or a per-call
// allocation of the plan's key. Allocation is what Go code pays most for
// inside WebAssembly, the garbage collector running on the request's
// thread: this path allocates the result slice and the field values, and
// nothing per row or per column besides.

// queryAs runs the query on the SDK's database and scans the result in
// place: the result is read into dbBuf, which the next statement reuses,
// so each field copies what it keeps (scanValue does).
func queryAs[T any](d *Database, sql string, args []any) ([]T, error) {
	data, err := d.run("Query", sql, args, false)
	if err != nil {
		return nil, err
	}
	return scanResult[T](d.name, data)
}

// scanResult scans every row of a query's result (abi.DBQueryResult) on
// database db into a T, as [Database.Query] and [ScanAll] do, with their
// errors.
func scanResult[T any](db string, data []byte) ([]T, error) {
	t := reflect.TypeFor[T]()
	var columns, rows []byte
	err := eachMember(data, func(key string, value []byte) error {
		switch key {
		case "columns":
			columns = value
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
	plan, names, err := rawScanPlan(t, columns)
	if err != nil {
		return nil, err
	}
	out, err := scanRows[T](t, plan, rows)
	if err != nil && names == nil {
		// The column's name, for the error: decoded now, off the
		// fast path.
		names, _ = columnNames(columns)
	}
	if e, ok := err.(*scanError); ok {
		return nil, fmt.Errorf("endpoints: ScanAll: row %d, column %q into %s: %w", e.row, names[e.column], t, e.err)
	}
	return out, err
}

// scanError is a value scanRows could not scan: its row (from 1) and
// column (from 0).
type scanError struct {
	row, column int
	err         error
}

func (e *scanError) Error() string { return e.err.Error() }

// scanRows scans the "rows" array of a result with plan.
func scanRows[T any](t reflect.Type, plan []columnScan, rows []byte) ([]T, error) {
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
			if err := plan[c].set(unsafe.Add(base, plan[c].offset), raw); err != nil {
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
	entries atomic.Pointer[[]rawPlan]
	mu      sync.Mutex // serializes additions
}

type rawPlan struct {
	columns string
	plan    []columnScan
}

var rawScanPlans sync.Map // reflect.Type -> *rawPlans

// rawScanPlan is the scan plan of t for a result whose "columns" array is
// columns; names are the columns, decoded when the plan was made here
// (nil when it came from the cache).
func rawScanPlan(t reflect.Type, columns []byte) ([]columnScan, []string, error) {
	v, ok := rawScanPlans.Load(t)
	if !ok {
		v, _ = rawScanPlans.LoadOrStore(t, &rawPlans{})
	}
	ps := v.(*rawPlans)
	if entries := ps.entries.Load(); entries != nil {
		for _, e := range *entries {
			if e.columns == string(columns) {
				return e.plan, nil, nil
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
	ps.mu.Lock()
	defer ps.mu.Unlock()
	var entries []rawPlan
	if old := ps.entries.Load(); old != nil {
		entries = *old
	}
	if len(entries) < maxRawPlans {
		next := append(entries[:len(entries):len(entries)], rawPlan{columns: string(columns), plan: plan})
		ps.entries.Store(&next)
	}
	return plan, names, nil
}
