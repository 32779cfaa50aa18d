package main

import (
	"bytes"
	"strings"
	"testing"
)

// sample is one sample as perf script -F ip,sym,dso prints it: each frame
// "symbol (object)", leaf first, with an address before it.
func sample(frames ...string) string {
	var b strings.Builder
	b.WriteString("\n")
	for i, f := range frames {
		b.WriteString("\t    ")
		b.WriteString([]string{"ffffffff82203249", "7fba2c3c1a20", "a13ec4"}[i%3])
		b.WriteString(" ")
		b.WriteString(f)
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.String()
}

const (
	bin    = " (/tmp/endpoints)"
	kernel = " ([kernel.kallsyms])"
	jit    = " ([JIT] tid 4740)"
)

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name   string
		frames []string
		want   string
	}{
		{"guest function", []string{"[2778/3471].$2817:::::L5" + jit, "[unknown] ([unknown])"}, "guest compiled code"},
		{"trampoline", []string{"memory_grow_trampoline" + jit}, "wazero: trampolines and code outside the binary"},
		{"no perf map", []string{"[unknown] ([unknown])", "github.com/tetratelabs/wazero/internal/engine/wazevo.(*callEngine).callWithStack" + bin}, "wazero: trampolines and code outside the binary"},
		{"client woken", []string{"_raw_spin_unlock_irqrestore" + kernel, "sock_def_readable" + kernel, "tcp_rcv_established" + kernel, "ksys_write" + kernel, "syscall.write" + bin}, "kernel: network write, waking the client"},
		{"write", []string{"tcp_sendmsg_locked" + kernel, "ksys_write" + kernel, "syscall.write" + bin}, "kernel: network write"},
		{"read", []string{"copy_user" + kernel, "ksys_read" + kernel, "syscall.read" + bin}, "kernel: network read"},
		{"guest fault", []string{"clear_page_erms" + kernel, "exc_page_fault" + kernel, "asm_exc_page_fault" + kernel, "[1509/3471].$1548:::::L1" + jit}, "kernel: page faults (guest)"},
		{"host fault", []string{"clear_page_erms" + kernel, "exc_page_fault" + kernel, "runtime.memclrNoHeapPointers" + bin}, "kernel: page faults (host)"},
		{"sqlite lock", []string{"posix_lock_inode" + kernel, "__x64_sys_fcntl" + kernel, "syscall.fcntl" + bin}, "kernel: fcntl (SQLite's locks)"},
		{"timer", []string{"_raw_spin_unlock_irqrestore" + kernel, "sysvec_apic_timer_interrupt" + kernel, "net/http.(*conn).serve" + bin}, "kernel: interrupts and timers"},
		{"kernel elsewhere", []string{"do_syscall_64" + kernel}, "kernel: other"},
		{"sysmon sleeping", []string{"hrtimer_nanosleep" + kernel, "__x64_sys_nanosleep" + kernel, "runtime.usleep.abi0" + bin, "runtime.sysmon" + bin}, "go runtime: sysmon (its sleeps and wakes included)"},
		{"sleep elsewhere", []string{"hrtimer_nanosleep" + kernel, "__x64_sys_nanosleep" + kernel, "runtime.usleep.abi0" + bin, "runtime.runqgrab" + bin}, "kernel: nanosleep/sched_yield"},
		{"vdso", []string{"__vdso_clock_gettime ([vdso])", "time.Now" + bin}, "vdso (clock_gettime)"},
		{"gc mark", []string{"runtime.scanObject" + bin, "runtime.gcDrain" + bin, "runtime.gcBgMarkWorker" + bin}, "go runtime: GC, background mark"},
		{"gc assist", []string{"runtime.scanObject" + bin, "runtime.gcAssistAlloc" + bin, "runtime.mallocgc" + bin}, "go runtime: GC, assists"},
		{"scheduler", []string{"runtime.findRunnable" + bin, "runtime.schedule" + bin, "runtime.park_m" + bin}, "go runtime: scheduler"},
		{"host allocation", []string{"runtime.mallocgcSmallScanNoHeader" + bin, "runtime.mallocgc" + bin, "github.com/wasmendpoints/endpoints/host.runPipeline" + bin}, "go runtime: allocation (host)"},
		{"guest memory.copy", []string{"runtime.memmove" + bin, "[2984/3471].$3023:::::L41" + jit}, "go runtime: memmove/memclr (guest)"},
		{"net/http memmove", []string{"runtime.memmove" + bin, "net/http.writeStatusLine" + bin}, "go runtime: memmove/memclr (net/http)"},
		{"map lookup", []string{"runtime.mapaccess1_faststr" + bin, "github.com/ncruces/go-sqlite3.(*Conn).Prepare" + bin}, "go runtime: other (SQLite)"},
		{"sqlite", []string{"github.com/ncruces/go-sqlite3-wasm/v6.(*Module)._sqlite3VdbeExec" + bin, "github.com/wasmendpoints/endpoints/database.(*sqliteConn).query" + bin}, "SQLite code"},
		{"host", []string{"github.com/wasmendpoints/endpoints/internal/router.(*Router[go.shape.*uint8]).Match" + bin}, "host code"},
		{"wazero", []string{"github.com/tetratelabs/wazero/internal/engine/wazevo.(*callEngine).callWithStack" + bin, "github.com/wasmendpoints/endpoints/host/internal/routemod.(*Module).Handle" + bin}, "wazero code"},
		{"net/http", []string{"net/http.(*conn).readRequest" + bin}, "net/http code"},
		{"other", []string{"time.Time.appendFormat" + bin, "time.Time.AppendFormat" + bin}, "other code"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := breakdown(strings.NewReader(sample(tc.frames...)))
			if err != nil {
				t.Fatal(err)
			}
			if c.samples != 1 || c.by[tc.want] != 1 {
				t.Errorf("counted %v in %d samples, want 1 sample of %q", c.by, c.samples, tc.want)
			}
		})
	}
}

// TestBreakdownPerRequest: samples become µs a request (2000 Hz: 500 µs
// a sample; 4 samples over 100 requests: 20 µs), largest first, the
// small ones left out.
func TestBreakdownPerRequest(t *testing.T) {
	in := sample("[1/2].f:::::L1"+jit) + sample("[1/2].f:::::L1"+jit) + sample("[2/2].g:::::L2"+jit) +
		"gp-ep 4751 \n" + strings.TrimPrefix(sample("net/http.(*conn).serve"+bin), "\n")
	c, err := breakdown(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	c.write(&out, 100, 2000, 6)
	want := "4 samples at 2000 Hz, 100 requests: 20.0 µs of CPU a request\n" +
		"  guest compiled code                                          15.00 µs  75.0%\n"
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
}

func TestBreakdownRefusesOtherFields(t *testing.T) {
	_, err := breakdown(strings.NewReader("\n\t    ffffffff82203249 _raw_spin_unlock_irqrestore+0x1d\n"))
	if err == nil || !strings.Contains(err.Error(), "-F ip,sym,dso") {
		t.Errorf("err = %v, want one naming -F ip,sym,dso", err)
	}
}
