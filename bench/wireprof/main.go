// Command wireprof breaks down where a server's CPU time goes a request,
// from a `perf record -g` profile of it taken while wrk loaded it: each
// sample is put in one category by its stack (the kernel's work by the
// system call or fault it serves, the Go runtime's by what it does, the
// rest by whose code it is: the guest's compiled code, wazero, SQLite,
// net/http, the host), and a category's samples are turned into
// microseconds of the server's CPU a request (samples / frequency /
// requests). run.sh serves an app, loads it and profiles it that way.
//
//	perf script -i perf.data -F ip,sym,dso | go run ./bench/wireprof -requests 40730 -hz 2000
//
// The numbers are CPU time of the profiled process only: a machine busy
// with other work does not add to them as it does to wrk's rate, though
// it makes caches colder. A guest's compiled code has names only when
// the process wrote a perf map (/tmp/perf-PID.map: an endpoints built
// with -tags perfmap, compiling in that process rather than reading a
// compilation cache); without one its samples are code in no object,
// counted with wazero's trampolines.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

func main() {
	requests := flag.Int("requests", 0, "the `N` requests served while perf recorded (wrk's count for the same window)")
	hz := flag.Int("hz", 2000, "the sampling frequency perf record ran at (-F `HZ`)")
	min := flag.Float64("min", 0.1, "leave out categories under `µs` a request")
	flag.Parse()
	if *requests <= 0 || *hz <= 0 {
		fmt.Fprintln(os.Stderr, "wireprof: -requests N (> 0) is required: the requests wrk counted while perf recorded; -hz is perf record's -F")
		os.Exit(2)
	}
	b, err := breakdown(os.Stdin)
	if err == nil && b.samples == 0 {
		err = errors.New("no samples on standard input: pipe `perf script -F ip,sym,dso` of a perf record -g profile into it")
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "wireprof:", err)
		os.Exit(1)
	}
	b.write(os.Stdout, *requests, *hz, *min)
}

// frame is one frame of a sample's stack: its symbol and the object it is
// in ("[kernel.kallsyms]", the binary's path, "[JIT] tid N" for code of
// a perf map).
type frame struct{ sym, dso string }

// counts is the samples of a profile by category.
type counts struct {
	samples int
	by      map[string]int
}

// frameLine is a line of `perf script -F ip,sym,dso`: an address, a
// symbol (possibly with spaces, or "[unknown]") and its object in
// parentheses.
var frameLine = regexp.MustCompile(`^\s*[0-9a-f]+\s+(.*?)\s*\(([^()]*)\)\s*$`)

// breakdown reads `perf script -F ip,sym,dso` output, samples separated
// by blank lines, each a stack leaf first, and counts them by category.
func breakdown(r io.Reader) (counts, error) {
	c := counts{by: map[string]int{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	var stack []frame
	flush := func() {
		if len(stack) > 0 {
			c.by[classify(stack)]++
			c.samples++
			stack = stack[:0]
		}
	}
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" {
			flush()
			continue
		}
		m := frameLine.FindStringSubmatch(text)
		if m == nil {
			if strings.HasPrefix(text, " ") || strings.HasPrefix(text, "\t") {
				return c, fmt.Errorf("line %d: %q is no frame (address, symbol, (object)): run perf script with -F ip,sym,dso", line, text)
			}
			continue // a sample's header line (comm, tid, ...) when -F has more fields
		}
		stack = append(stack, frame{m[1], m[2]})
	}
	flush()
	return c, sc.Err()
}

// guestFunction is how wazero names a guest's compiled function in its
// perf map: "[index/count].name", e.g. "[12/1633].runtime.mallocgc".
var guestFunction = regexp.MustCompile(`^\[\d+/\d+\]`)

// kernelCalls are the system calls and entries a kernel sample is filed
// under, by a function its stack holds, first match first.
var kernelCalls = []struct{ category, fn string }{
	{"kernel: page faults", "exc_page_fault"},
	{"kernel: network write, waking the client", "sock_def_readable"},
	{"kernel: network write", "ksys_write"},
	{"kernel: network write", "__x64_sys_sendto"},
	{"kernel: network read", "ksys_read"},
	{"kernel: network read", "__x64_sys_recvfrom"},
	{"kernel: epoll", "epoll_wait"},
	{"kernel: futex", "futex"},
	{"kernel: fcntl (SQLite's locks)", "fcntl"},
	{"kernel: pread/pwrite (SQLite)", "pread"},
	{"kernel: pread/pwrite (SQLite)", "pwrite"},
	{"kernel: madvise", "madvise"},
	{"kernel: mmap/munmap", "mmap"},
	{"kernel: mmap/munmap", "munmap"},
	{"kernel: nanosleep/sched_yield", "nanosleep"},
	{"kernel: nanosleep/sched_yield", "sched_yield"},
	{"kernel: accept/close", "accept"},
	{"kernel: accept/close", "__x64_sys_close"},
	{"kernel: signals", "rt_sig"},
	{"kernel: signals", "tgkill"},
}

// classify puts one sample, its stack leaf first, in a category.
func classify(stack []frame) string {
	leaf := stack[0]
	has := func(s string) bool {
		for _, f := range stack {
			if strings.Contains(f.sym, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("runtime.sysmon"):
		return "go runtime: sysmon (its sleeps and wakes included)"
	case isKernel(leaf):
		for _, k := range kernelCalls {
			if has(k.fn) {
				if k.fn == "exc_page_fault" {
					return k.category + " (" + faulter(stack) + ")"
				}
				return k.category
			}
		}
		if has("irqentry") || has("sysvec") || has("asm_common_interrupt") {
			return "kernel: interrupts and timers"
		}
		return "kernel: other"
	case isJIT(leaf):
		if guestFunction.MatchString(leaf.sym) {
			return "guest compiled code"
		}
		return "wazero: trampolines and code outside the binary"
	case strings.Contains(leaf.dso, "vdso"):
		return "vdso (clock_gettime)"
	case has("runtime.gcBgMarkWorker"):
		return "go runtime: GC, background mark"
	case has("runtime.gcAssistAlloc"):
		return "go runtime: GC, assists"
	case has("runtime.bgsweep") || has("runtime.bgscavenge"):
		return "go runtime: GC, sweep and scavenge"
	case strings.HasPrefix(leaf.sym, "runtime.") && (has("runtime.schedule") || has("runtime.findRunnable") || has("runtime.park_m") || has("runtime.goschedImpl")):
		return "go runtime: scheduler"
	case has("runtime.mallocgc"):
		return "go runtime: allocation (" + owner(stack) + ")"
	case strings.HasPrefix(leaf.sym, "runtime.mem"):
		return "go runtime: memmove/memclr (" + owner(stack) + ")"
	case strings.HasPrefix(leaf.sym, "runtime."):
		return "go runtime: other (" + owner(stack) + ")"
	}
	return owner(stack) + " code"
}

// owner is whose code a Go sample serves: that of the first frame from
// the leaf that one of ours, a library's or the guest's.
func owner(stack []frame) string {
	for _, f := range stack {
		switch {
		case isJIT(f):
			return "guest"
		case strings.Contains(f.sym, "ncruces/go-sqlite3"):
			return "SQLite"
		case strings.Contains(f.sym, "tetratelabs/wazero"):
			return "wazero"
		case strings.Contains(f.sym, "wasmendpoints/endpoints"):
			return "host"
		case strings.HasPrefix(f.sym, "net/http.") || strings.HasPrefix(f.sym, "net.") || strings.HasPrefix(f.sym, "internal/poll.") || strings.HasPrefix(f.sym, "bufio."):
			return "net/http"
		}
	}
	return "other"
}

// faulter is whose access a page fault served: the guest's compiled code
// or the host's Go code, by the first frame outside the kernel.
func faulter(stack []frame) string {
	for _, f := range stack {
		if !isKernel(f) {
			if isJIT(f) {
				return "guest"
			}
			return "host"
		}
	}
	return "kernel"
}

func isKernel(f frame) bool { return f.dso == "[kernel.kallsyms]" }

// isJIT is code of a perf map or code perf found in no object: a
// wazero-compiled module's.
func isJIT(f frame) bool {
	return strings.HasPrefix(f.dso, "[JIT]") || strings.HasPrefix(f.dso, "/tmp/perf-") || f.dso == "[unknown]"
}

// write prints each category's CPU time a request, largest first, those
// under min µs left out, and the total.
func (c counts) write(w io.Writer, requests, hz int, min float64) {
	per := 1e6 / float64(hz) / float64(requests) // µs a request per sample
	type row struct {
		name string
		n    int
	}
	var rows []row
	for k, n := range c.by {
		rows = append(rows, row{k, n})
	}
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].n != rows[j].n {
			return rows[i].n > rows[j].n
		}
		return rows[i].name < rows[j].name
	})
	fmt.Fprintf(w, "%d samples at %d Hz, %d requests: %.1f µs of CPU a request\n", c.samples, hz, requests, float64(c.samples)*per)
	for _, r := range rows {
		if us := float64(r.n) * per; us >= min {
			fmt.Fprintf(w, "  %-58s %7.2f µs %5.1f%%\n", r.name, us, 100*float64(r.n)/float64(c.samples))
		}
	}
}
