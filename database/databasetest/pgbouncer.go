package databasetest

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmendpoints/endpoints/internal/syncbuf"
)

// StartPgBouncer starts PgBouncer on a free loopback port in front of
// the server of pgURL, a URL StartPostgres returned, in pool mode
// ("transaction", "session" or "statement"), with extra lines added to
// its [pgbouncer] section (such as "ignore_startup_parameters =
// statement_timeout"), and returns the URL of the same database through
// it. Every database of the server is reached through it: a URL of
// PgBouncer's with another database's name reaches that database. PgBouncer
// is stopped when t's test ends.
//
// Without the pgbouncer binary (on PATH, or /usr/sbin/pgbouncer: Debian's
// package pgbouncer) the test is skipped, unless the environment variable
// CI is set: then it fails, since CI installs the package (test.sh). As
// root, PgBouncer runs as the user postgres, since it refuses to run as
// root.
func StartPgBouncer(t testing.TB, pgURL, mode string, extra ...string) string {
	t.Helper()
	bin, err := exec.LookPath("pgbouncer")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/pgbouncer"); serr != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("PgBouncer is required (CI installs the Debian package pgbouncer): %v", err)
			}
			t.Skipf("PgBouncer not installed (Debian's package pgbouncer): %v", err)
		}
		bin = "/usr/sbin/pgbouncer"
	}
	u, err := url.Parse(pgURL)
	if err != nil {
		t.Fatalf("StartPgBouncer: the url of PostgreSQL: %v", err)
	}
	dir, err := os.MkdirTemp("", "endpoints-pgbouncer-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port for PgBouncer: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ini := fmt.Sprintf(`[databases]
* = host=%s port=%s

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
pool_mode = %s
default_pool_size = 4
max_client_conn = 100
server_reset_query_always = 0
logfile = %s
pidfile = %s
%s
`, u.Hostname(), u.Port(), port, filepath.Join(dir, "users.txt"), mode, filepath.Join(dir, "pgbouncer.log"), filepath.Join(dir, "pgbouncer.pid"), strings.Join(extra, "\n"))
	files := map[string]string{"pgbouncer.ini": ini, "users.txt": fmt.Sprintf("%q \"\"\n", u.User.Username())}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		pu, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running PgBouncer as root needs the user postgres: %v", err)
		}
		uid, _ := strconv.Atoi(pu.Uid)
		gid, _ := strconv.Atoi(pu.Gid)
		if err := os.Chmod(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		cmd = exec.Command("runuser", "-u", "postgres", "--", bin, filepath.Join(dir, "pgbouncer.ini"))
	} else {
		cmd = exec.Command(bin, filepath.Join(dir, "pgbouncer.ini"))
	}
	out := &syncbuf.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting pgbouncer: %v", err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	t.Cleanup(func() {
		// runuser passes SIGKILL on to nothing: kill PgBouncer itself
		// through its pid file.
		if pid, err := readPid(dir, "pgbouncer.pid"); err == nil {
			if p, err := os.FindProcess(pid); err == nil {
				p.Kill()
			}
		}
		cmd.Process.Kill()
		<-done
	})
	bouncer := *u
	bouncer.Host = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	err = waitAccepting(bouncer.String(), done)
	select {
	case <-done:
		log, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
		t.Fatalf("pgbouncer exited before accepting connections:\n%s%s", out, log)
	default:
	}
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
		t.Fatalf("pgbouncer on port %d did not accept connections within 20 s: %v\n%s%s", port, err, out, log)
	}
	return bouncer.String()
}
