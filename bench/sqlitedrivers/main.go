// Command sqlitedrivers measures the pure-Go SQLite drivers the host could
// use, go-sqlite3 (github.com/ncruces/go-sqlite3) and modernc.org/sqlite,
// on the statements of the users example (examples/users): a point SELECT,
// the LIKE search, an INSERT, an UPDATE ... RETURNING and a transaction of
// ten statements, on a table of 1000 users made by the example's
// migrations.
//
// Every variant gets a copy of the same seeded file in a directory of its
// own, the same PRAGMAs (WAL, synchronous, foreign keys, a busy timeout)
// and one connection whose statements stay prepared; the variants are
// measured in turn, batch by batch, in an order that rotates each round,
// so that a change in the machine's load falls on all of them. Each batch
// reports wall-clock and CPU time (getrusage, the whole process) per
// statement; the summary gives each variant's median and range over the
// rounds and its ratio to go-sqlite3's own API measured in the same round.
//
//	go run . -rounds 5 -n 1000
//
// README.md says what each variant is and how to count the system calls
// of a statement (syscalls.sh).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/wasmendpoints/endpoints/database"
)

// busyTimeout is the host's (database.SQLiteBusyTimeout), for every variant.
const busyTimeout = database.SQLiteBusyTimeout

// config is what every variant's connection is set up with.
type config struct {
	// synchronous is PRAGMA synchronous's value: NORMAL as the host sets
	// it; FULL is SQLite's default, which modernc.org/sqlite keeps in WAL
	// mode (go-sqlite3 is built with SQLITE_DEFAULT_WAL_SYNCHRONOUS=1, so
	// NORMAL); "default" sets none, leaving each driver's own.
	synchronous string
	// deadline: the statements run with a context that has a deadline,
	// as every statement of a request does in the host; without one,
	// with context.Background(), which no driver needs to watch.
	deadline bool
}

// pragmas are the PRAGMAs database/sqlite.go runs on each connection,
// with cfg's synchronous.
func (cfg config) pragmas() []string {
	if strings.EqualFold(cfg.synchronous, "default") {
		return []string{"PRAGMA journal_mode=WAL", "PRAGMA foreign_keys=ON"}
	}
	return []string{"PRAGMA journal_mode=WAL", "PRAGMA synchronous=" + cfg.synchronous, "PRAGMA foreign_keys=ON"}
}

// variant is a driver and the API it is used through.
type variant struct {
	name, about string
	open        func(path string, cfg config) (runner, error)
}

var variants = []variant{
	{"ncruces", "go-sqlite3's own API, as database/sqlite.go uses it", openNcrucesDirect},
	{"ncruces-sql", "go-sqlite3 through database/sql (its driver package)", openSQL("sqlite3", true)},
	{"modernc-sql", "modernc.org/sqlite through database/sql", openSQL("sqlite", false)},
	{"modernc-lib", "modernc.org/sqlite/lib, SQLite's C API translated to Go", openModerncLib},
	{"host", "the host's database package (go-sqlite3 underneath)", openHost},
}

// op is one measured statement (or transaction); run gets its index in
// the batch. cleanup, when set, runs after each batch, untimed, so that
// every batch starts from the same table.
type op struct {
	name, about string
	run         func(ctx context.Context, r runner, i int) error
	cleanup     string
}

// ops are the measured statements; users is the seeded table's size.
func ops(users int) []op {
	id := func(i int) int64 { return int64(i%users) + 1 }
	return []op{
		{name: "get", about: "SELECT ... WHERE id = $1 (one row)", run: func(ctx context.Context, r runner, i int) error {
			u, err := r.get(ctx, id(i))
			if err == nil && u.ID != id(i) {
				err = fmt.Errorf("got user %d, want %d", u.ID, id(i))
			}
			return err
		}},
		{name: "search", about: "SELECT ... LIKE $1 ... LIMIT 50 (a scan, 50 rows)", run: func(ctx context.Context, r runner, i int) error {
			f, err := r.search(ctx, searchPattern, searchLimit)
			if err == nil && f.rows != searchLimit {
				err = fmt.Errorf("got %d rows, want %d", f.rows, searchLimit)
			}
			return err
		}},
		{name: "insert", about: "INSERT INTO users (autocommit)", cleanup: fmt.Sprintf("DELETE FROM users WHERE id > %d", users), run: func(ctx context.Context, r runner, i int) error {
			u := seededUser(int64(users + 1 + i))
			return r.insert(ctx, u)
		}},
		// Each update writes a name the row does not have (SQLite skips
		// writing a cell whose content is unchanged); users 1-3 stay as
		// the example made them, and the cleanup names the others back.
		{name: "update", about: "UPDATE users ... RETURNING (autocommit)", cleanup: "UPDATE users SET name = 'User ' || id WHERE id > 3", run: func(ctx context.Context, r runner, i int) error {
			id := int64(4 + i%(users-3))
			u, err := r.update(ctx, id, fmt.Sprintf("Renamed %d", i))
			if err == nil && u.ID != id {
				err = fmt.Errorf("updated user %d, want %d", u.ID, id)
			}
			return err
		}},
		{name: "tx", about: "BEGIN IMMEDIATE, 5 × (UPDATE counters RETURNING, INSERT INTO orders), COMMIT", cleanup: "DELETE FROM orders", run: func(ctx context.Context, r runner, i int) error {
			_, err := r.order(ctx, id(i))
			return err
		}},
	}
}

func main() {
	rounds := flag.Int("rounds", 5, "rounds: each measures every statement on every variant once")
	n := flag.Int("n", 1000, "statements per batch (one variant, one statement, one round)")
	warmup := flag.Int("warmup", 100, "statements per variant and statement before the first round, not measured")
	users := flag.Int("users", 1000, "users in the seeded table")
	sync := flag.String("sync", "NORMAL", "PRAGMA synchronous of every variant but host: NORMAL as the host, FULL, or default (each driver's own: go-sqlite3 NORMAL, modernc FULL)")
	only := flag.String("variants", "", "comma-separated variants to run (default all): "+names(variants))
	opsFlag := flag.String("ops", "", "comma-separated statements to run (default all): get, search, insert, update, tx")
	migrations := flag.String("migrations", "../../examples/users/server/migrations", "the example's migrations (the schema)")
	dir := flag.String("dir", "", "directory for the database files (default: a new one under $TMPDIR, removed at the end)")
	cleanup := flag.Bool("cleanup", true, "after each INSERT, UPDATE and transaction batch, undo what it wrote (untimed)")
	deadline := flag.Bool("deadline", true, "run the statements with a context that has a deadline, as the host runs a request's (false: context.Background())")
	flag.Parse()
	if err := run(*rounds, *n, *warmup, *users, config{synchronous: *sync, deadline: *deadline}, *only, *opsFlag, *migrations, *dir, *cleanup, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sqlitedrivers:", err)
		os.Exit(1)
	}
}

func names(vs []variant) string {
	var s []string
	for _, v := range vs {
		s = append(s, v.name)
	}
	return strings.Join(s, ", ")
}

// pick returns the items of all named in list (comma-separated; all when
// empty), in all's order.
func pick[T any](all []T, name func(T) string, list, what string) ([]T, error) {
	if list == "" {
		return all, nil
	}
	want := strings.Split(list, ",")
	var out []T
	for _, x := range all {
		if slices.Contains(want, name(x)) {
			out = append(out, x)
		}
	}
	if len(out) != len(want) {
		var known []string
		for _, x := range all {
			known = append(known, name(x))
		}
		return nil, fmt.Errorf("-%s %q: unknown or repeated name; known: %s", what, list, strings.Join(known, ", "))
	}
	return out, nil
}

// sample is one batch's cost per statement, in nanoseconds.
type sample struct{ wall, cpu float64 }

func run(rounds, n, warmup, users int, cfg config, only, opsList, migrations, dir string, cleanup bool, out io.Writer) error {
	vs, err := pick(variants, func(v variant) string { return v.name }, only, "variants")
	if err != nil {
		return err
	}
	os_, err := pick(ops(users), func(o op) string { return o.name }, opsList, "ops")
	if err != nil {
		return err
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "sqlitedrivers-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	seed := filepath.Join(dir, "seed.db")
	if err := seedFile(seed, migrations, users, cfg); err != nil {
		return err
	}
	runners := make([]runner, len(vs))
	defer func() {
		for _, r := range runners {
			if r != nil {
				r.close()
			}
		}
	}()
	fmt.Fprintf(out, "# sqlitedrivers, %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(out, "%s, GOMAXPROCS %d, %d CPUs, load average %s; %d rounds of %d statements a batch, contexts with a deadline: %v; files in %s\n\n",
		runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), loadavg(), rounds, n, cfg.deadline, dir)
	fmt.Fprintln(out, modules())
	fmt.Fprintln(out, "| variant | what | sqlite | journal_mode | synchronous | foreign_keys | busy_timeout |")
	fmt.Fprintln(out, "|---|---|---|---|---|---|---|")
	for i, v := range vs {
		path := filepath.Join(dir, v.name, "users.db")
		if err := copyFile(seed, path); err != nil {
			return err
		}
		if runners[i], err = v.open(path, cfg); err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
		s, err := readSettings(runners[i], v.name)
		if err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
		fmt.Fprintf(out, "| %s | %s | %s |\n", v.name, v.about, strings.Join(s, " | "))
	}
	fmt.Fprintln(out)

	batch := func(r runner, o op, count int) (sample, error) {
		runtime.GC()
		ctx := context.Background()
		if cfg.deadline {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, 10*time.Minute)
			defer cancel()
		}
		cpu0, t0 := cpuTime(), time.Now()
		for i := range count {
			if err := o.run(ctx, r, i); err != nil {
				return sample{}, fmt.Errorf("%s, statement %d: %w", o.name, i, err)
			}
		}
		wall, cpu := time.Since(t0), cpuTime()-cpu0
		if cleanup && o.cleanup != "" {
			if _, err := r.text(ctx, o.cleanup); err != nil {
				return sample{}, fmt.Errorf("%s: cleanup: %w", o.name, err)
			}
		}
		return sample{wall: float64(wall) / float64(count), cpu: float64(cpu) / float64(count)}, nil
	}
	for _, o := range os_ {
		for i, v := range vs {
			if warmup > 0 {
				if _, err := batch(runners[i], o, warmup); err != nil {
					return fmt.Errorf("%s: warming up: %w", v.name, err)
				}
			}
		}
	}
	// results[op][variant] holds one sample a round.
	results := make([][][]sample, len(os_))
	for k := range os_ {
		results[k] = make([][]sample, len(vs))
	}
	for round := range rounds {
		for k, o := range os_ {
			for j := range vs {
				i := (j + round) % len(vs) // the order rotates each round
				s, err := batch(runners[i], o, n)
				if err != nil {
					return fmt.Errorf("%s: round %d: %w", vs[i].name, round+1, err)
				}
				results[k][i] = append(results[k][i], s)
			}
		}
	}
	fmt.Fprintf(out, "load average at the end: %s\n\n", loadavg())
	report(out, os_, vs, results)
	return nil
}

// report writes a table per statement: each variant's median and range
// over the rounds, and its ratio to the first variant in the same round.
func report(out io.Writer, os_ []op, vs []variant, results [][][]sample) {
	for k, o := range os_ {
		fmt.Fprintf(out, "## %s: %s\n\n", o.name, o.about)
		fmt.Fprintf(out, "| variant | wall µs | CPU µs | wall / %s | CPU / %s |\n", vs[0].name, vs[0].name)
		fmt.Fprintln(out, "|---|---|---|---|---|")
		base := results[k][0]
		for i, v := range vs {
			var wall, cpu, wr, cr []float64
			for r, s := range results[k][i] {
				wall, cpu = append(wall, s.wall/1e3), append(cpu, s.cpu/1e3)
				wr, cr = append(wr, s.wall/base[r].wall), append(cr, s.cpu/base[r].cpu)
			}
			fmt.Fprintf(out, "| %s | %s | %s | %s | %s |\n", v.name, spread(wall, 1), spread(cpu, 1), spread(wr, 2), spread(cr, 2))
		}
		fmt.Fprintln(out)
	}
}

// spread is "median (min-max)" of xs.
func spread(xs []float64, decimals int) string {
	if len(xs) == 0 {
		return ""
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return fmt.Sprintf("%.*f (%.*f-%.*f)", decimals, med, decimals, s[0], decimals, s[len(s)-1])
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadavg is the machine's load average (1, 5, 15 minutes), or "?".
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// modules names the versions of the drivers this binary links.
func modules() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(no build information)\n"
	}
	var s []string
	for _, m := range info.Deps {
		switch m.Path {
		case "github.com/ncruces/go-sqlite3", "github.com/ncruces/go-sqlite3-wasm/v6", "modernc.org/sqlite", "modernc.org/libc":
			s = append(s, m.Path+" "+m.Version)
		}
	}
	return strings.Join(s, ", ") + "\n"
}

// readSettings reads back what the connection runs with: SQLite's version
// and the PRAGMAs every variant sets. The host's guest authorizer refuses
// these PRAGMAs; its settings are database/sqlite.go's.
func readSettings(r runner, name string) ([]string, error) {
	ctx := context.Background()
	version, err := r.text(ctx, "SELECT sqlite_version()")
	if err != nil {
		return nil, err
	}
	if name == "host" {
		return []string{version, "wal (database/sqlite.go)", "1 (database/sqlite.go)", "1 (database/sqlite.go)", fmt.Sprint(busyTimeout.Milliseconds())}, nil
	}
	s := []string{version}
	for _, p := range []string{"journal_mode", "synchronous", "foreign_keys", "busy_timeout"} {
		v, err := r.text(ctx, "PRAGMA "+p)
		if err != nil {
			return nil, fmt.Errorf("PRAGMA %s: %w", p, err)
		}
		s = append(s, v)
	}
	return s, nil
}
