// Package databasetest starts real databases for tests: a PostgreSQL
// server of its own per test, as storagetest.StartRedis does for Redis.
//
// Experimental: this package may change before 1.0 (README.md, "Stability
// before 1.0").
package databasetest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/wasmendpoints/endpoints/internal/poll"
	"github.com/wasmendpoints/endpoints/internal/syncbuf"
)

// StartPostgres initializes a PostgreSQL cluster in a temporary directory,
// starts its server on a free loopback port, waits until it accepts
// connections and returns the URL of its "postgres" database
// (postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable). stop kills
// the server, as a crash would, to test outages; restart starts it again
// on the same port with the same data. The server is killed and its
// directory removed when t's test ends.
//
//	url, stop, restart := databasetest.StartPostgres(t)
//
// # Notes
//
//   - The binaries are looked up on PATH, then in
//     /usr/lib/postgresql/*/bin (Debian's package postgresql). Without them
//     the test is skipped, unless the environment variable CI is set: then
//     it fails, since CI installs the package.
//   - As root, initdb and the server run as the user postgres (runuser),
//     since PostgreSQL refuses to run as root.
//   - The cluster trusts local connections and runs with fsync off: fast,
//     and for tests only.
func StartPostgres(t testing.TB) (url string, stop func(), restart func()) {
	t.Helper()
	bin, err := findBinaries()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL is required (CI installs the Debian package postgresql): %v", err)
		}
		t.Skipf("PostgreSQL not installed: %v", err)
	}
	dir, err := os.MkdirTemp("", "endpoints-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	s := &pgServer{bin: bin, dir: dir, data: filepath.Join(dir, "data")}
	if os.Geteuid() != 0 {
		if err := os.Mkdir(s.sockets(), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running PostgreSQL as root needs the user postgres, which the Debian package creates: %v", err)
		}
		s.asUser = u.Username
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{s.data, s.sockets()} {
			if err := os.Mkdir(d, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(d, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
	}
	if out, err := s.command("initdb", "-D", s.data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port for PostgreSQL: %v", err)
	}
	s.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	if err := s.start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.stop)
	unixURLs.Store(s.url(), s.unixURL())
	t.Cleanup(func() { unixURLs.Delete(s.url()) })
	restart = func() {
		t.Helper()
		s.stop()
		if err := s.start(); err != nil {
			t.Fatal(err)
		}
	}
	return s.url(), s.stop, restart
}

// unixURLs maps the URL StartPostgres returned to the server's Unix
// socket URL, while its test runs.
var unixURLs sync.Map

// PostgresUnixURL is the URL of the same server and database as url, a
// URL StartPostgres returned while its test runs, over the server's Unix
// socket instead of TCP: to compare what the transport costs. ok is false
// for any other URL.
func PostgresUnixURL(url string) (unix string, ok bool) {
	v, ok := unixURLs.Load(url)
	if !ok {
		return "", false
	}
	return v.(string), true
}

// findBinaries is the directory holding initdb and postgres.
func findBinaries() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Sort(sort.Reverse(sort.StringSlice(dirs)))
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, nil
		}
	}
	return "", fmt.Errorf("initdb is neither on PATH nor in /usr/lib/postgresql/*/bin")
}

// pgServer is one PostgreSQL server, restartable on its port.
type pgServer struct {
	bin, dir, data, asUser string
	port                   int

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	log  *syncbuf.Buffer
}

// sockets is the directory of the server's Unix socket.
func (s *pgServer) sockets() string { return filepath.Join(s.dir, "sockets") }

func (s *pgServer) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", s.port)
}

// unixURL is url over the Unix socket in sockets.
func (s *pgServer) unixURL() string {
	return fmt.Sprintf("postgres://postgres@/postgres?host=%s&port=%d&sslmode=disable", s.sockets(), s.port)
}

// command runs a PostgreSQL binary, as the user postgres when root.
func (s *pgServer) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(s.bin, name)
	if s.asUser != "" {
		return exec.Command("runuser", append([]string{"-u", s.asUser, "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

// start runs the server and waits until it accepts connections.
func (s *pgServer) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = &syncbuf.Buffer{}
	s.cmd = s.command("postgres", "-D", s.data, "-p", strconv.Itoa(s.port), "-k", s.sockets(),
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=50")
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	done := make(chan struct{})
	s.done = done
	go func(cmd *exec.Cmd) {
		cmd.Wait()
		close(done)
	}(s.cmd)
	err := waitAccepting(s.url(), done)
	select {
	case <-done:
		return fmt.Errorf("postgres on port %d exited before accepting connections; its log:\n%s", s.port, s.log)
	default:
	}
	if err != nil {
		s.kill()
		return fmt.Errorf("postgres on port %d did not accept connections within 20 s: %v; its log:\n%s", s.port, err, s.log)
	}
	return nil
}

// stop kills the server, if it runs, and waits until it has exited.
func (s *pgServer) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.kill()
}

func (s *pgServer) kill() {
	if s.cmd == nil {
		return
	}
	// runuser passes signals on to nothing: signal the postmaster
	// through its pid file. SIGQUIT is PostgreSQL's immediate shutdown:
	// the server and its backends stop at once, as a crash would stop
	// them, but the postmaster removes its System V shared memory
	// segment, which a SIGKILL leaves behind: one a start, until the
	// kernel's (kernel.shmmni, 4096) are gone and every initdb fails with
	// "could not create shared memory segment: No space left on device".
	// SIGKILL remains for a server that does not stop.
	if pid, err := readPid(s.data, "postmaster.pid"); err == nil {
		if p, err := os.FindProcess(pid); err == nil {
			p.Signal(syscall.SIGQUIT)
			select {
			case <-s.done:
			case <-time.After(10 * time.Second):
				p.Kill()
			}
		}
	}
	s.cmd.Process.Kill()
	<-s.done
	// The backends exit when their postmaster dies; wait for the port
	// to be free before a restart binds it.
	poll.Until(10*time.Second, func() bool {
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), 100*time.Millisecond)
		if err != nil {
			return true
		}
		c.Close()
		return false
	})
	// What a killed server leaves would stop the next one.
	os.Remove(filepath.Join(s.data, "postmaster.pid"))
	sock := filepath.Join(s.sockets(), ".s.PGSQL."+strconv.Itoa(s.port))
	os.Remove(sock)
	os.Remove(sock + ".lock")
	s.cmd = nil
}

// readPid reads a server's pid from the first line of its pid file
// (PostgreSQL's postmaster.pid, PgBouncer's pidfile) in dir.
func readPid(dir, name string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return 0, err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	return strconv.Atoi(string(bytes.TrimSpace(line)))
}

// waitAccepting waits until a server started as a process takes a
// connection at url, up to 20 s, or until the process exits (done
// closes; nil then: the caller reads done to tell the two apart).
func waitAccepting(url string, done <-chan struct{}) error {
	return poll.UntilNil(20*time.Second, func() error {
		select {
		case <-done:
			return nil
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		c, err := pgconn.Connect(ctx, url)
		if err != nil {
			return err
		}
		return c.Close(ctx)
	})
}
