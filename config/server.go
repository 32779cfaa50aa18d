package config

import (
	"time"
)

// Server is the "server" member of endpoints.json: the deadlines that
// keep slow, idle and stalled clients from holding connections, goroutines
// and guest instances. Zero fields take the defaults, which suit a server
// facing the internet:
//
//	{"readHeaderTimeout": "10s", "readTimeout": "30s", "writeTimeout": "30s",
//	 "idleTimeout": "60s", "maxHeaderBytes": 16384, "shutdownTimeout": "10s",
//	 "pipelining": "close", "refusalPause": "100ms"}
//
// # Notes
//
//   - The host applies readTimeout and writeTimeout to every request itself
//     (through http.ResponseController), so an embedder's own http.Server
//     gets them too. readHeaderTimeout, idleTimeout, maxHeaderBytes,
//     pipelining and refusalPause are settings of the http.Server: `endpoints serve` and `dev` apply them
//     (host.Host.HTTPServer builds such a server).
//   - writeTimeout bounds each write, not the whole answer, so a long
//     stream (Server-Sent Events) lives as long as its client keeps
//     reading; a client that stops reading is dropped after writeTimeout.
//   - They apply at the next start, except readTimeout and writeTimeout,
//     which apply at each reload. A reload that changes the others says
//     so ("restart to apply those") and keeps their previous values in
//     effect.
type Server struct {
	// ReadHeaderTimeout bounds reading a request's line and headers.
	// Defaults to [DefaultReadHeaderTimeout].
	ReadHeaderTimeout Duration `json:"readHeaderTimeout,omitzero"`
	// ReadTimeout bounds reading a request's body, counted from the start
	// of the request: a client that declares a body and sends it too
	// slowly gets 408 (or, once a guest reads the body, the guest sees a
	// read error). Defaults to [DefaultReadTimeout].
	ReadTimeout Duration `json:"readTimeout,omitzero"`
	// WriteTimeout bounds each write of an answer to the client. Defaults
	// to [DefaultWriteTimeout].
	WriteTimeout Duration `json:"writeTimeout,omitzero"`
	// IdleTimeout is how long a keep-alive connection may wait for its next
	// request. Defaults to [DefaultIdleTimeout].
	IdleTimeout Duration `json:"idleTimeout,omitzero"`
	// MaxHeaderBytes bounds the request line and header fields, their
	// CRLFs included: past it a request gets 431 naming this setting
	// (net/http answers a bare 431 itself from 4 KiB past it, before
	// reading further). Defaults to [DefaultMaxHeaderBytes].
	MaxHeaderBytes int `json:"maxHeaderBytes,omitzero"`
	// ShutdownTimeout is how long `endpoints serve` waits for requests in
	// flight when it is asked to stop (SIGINT, SIGTERM) before it stops
	// their guests. Defaults to [DefaultShutdownTimeout].
	ShutdownTimeout Duration `json:"shutdownTimeout,omitzero"`
	// Compression compresses buffered answers for the clients that
	// accept it; see [Compression]. The zero value is on, with the
	// defaults.
	Compression Compression `json:"compression,omitzero"`
	// Pipelining is what the server does with an HTTP/1.1 client that
	// pipelines, sending a request before it has the answer to the
	// previous one (RFC 9112 §9.3.2): [PipeliningClose] closes its
	// connection after the answer to the request it pipelined (the
	// client dials again, as the RFC tells it to, for what was left
	// unanswered); [PipeliningServe] serves its requests in turn, as
	// net/http does, which lets a few connections that pipeline at full
	// speed keep every other client waiting (a connection whose next
	// request is already there never waits for the network, and the Go
	// scheduler looks for other readable connections only when nothing
	// else runs, or every 10 ms). Defaults to [DefaultPipelining],
	// "close". It is a setting of the http.Server (Host.HTTPServer), for
	// HTTP/1 over TCP on Linux.
	Pipelining string `json:"pipelining,omitzero"`
	// RefusalPause is how long an HTTP/1 connection waits before its
	// next request is read, after the host refused one of its requests
	// for abuse: a rate limit's 429, the per-client Idempotency-Key
	// quota's, the failed-authentication budget's (not a guest's own
	// 429, nor a 4xx of validation). The refusal itself goes out at once.
	// So a client that keeps sending on one keep-alive connection what
	// the host keeps refusing gets at most one request read per pause on
	// it. A duration such as "100ms", or "0" to turn it off. Defaults to
	// [DefaultRefusalPause]. It is a setting of the http.Server
	// (Host.HTTPServer), for HTTP/1; a trusted proxy's connections
	// (trustedProxies) are never paced, since they carry many clients'
	// requests, and a shutdown ends every pause.
	RefusalPause string `json:"refusalPause,omitzero"`
}

// RefusalPauseDuration is [Server.RefusalPause] as a duration, its
// default when empty; 0 is off. A value [Parse] would refuse counts as
// 0.
func (c Server) RefusalPauseDuration() time.Duration {
	if c.RefusalPause == "" {
		return DefaultRefusalPause
	}
	d, err := time.ParseDuration(c.RefusalPause)
	if err != nil || d < 0 {
		return 0
	}
	return d
}

// Values of [Server.Pipelining].
const (
	// PipeliningClose closes a pipelining client's connection after the
	// answer to the request it pipelined.
	PipeliningClose = "close"
	// PipeliningServe serves a pipelining client's requests in turn on
	// its connection.
	PipeliningServe = "serve"
)

// Compression is "server.compression": zstd or gzip for the buffered
// answers of clients that accept them (Accept-Encoding), at least
// MinBytes long, of a media type that compresses (JSON, text, XML...).
// The zero value is every default:
//
//	{"server": {"compression": {"minBytes": "1KiB", "level": "fastest"}}}
//
// # Notes
//
//   - Streams (Server-Sent Events, media answers) are never compressed,
//     nor answers that are already (images, archives, a Content-Encoding
//     the guest set), nor HEAD, 204 and 304 answers.
//   - A compressed answer carries a weak ETag and every answer that could
//     be compressed carries Vary: Accept-Encoding.
//   - It applies at each reload.
//   - Experimental: its members may change before 1.0.
type Compression struct {
	// Off turns compression off: every answer goes out as the handler
	// wrote it. Defaults to false.
	Off bool `json:"off,omitzero"`
	// MinBytes is the smallest answer compressed (1 compresses every
	// answer). If zero, [DefaultCompressionMinBytes].
	MinBytes int64 `json:"minBytes,omitzero"`
	// Level is how hard the encoders work: "fastest" (gzip 1, zstd's
	// fastest), "default" (gzip's and zstd's defaults, about 5 and 3) or
	// "best" (gzip 9, zstd about 7).
	// If empty, [DefaultCompressionLevel].
	Level string `json:"level,omitzero"`
}

// Defaults of [Compression].
const (
	// DefaultCompressionMinBytes is the default of
	// [Compression.MinBytes]: 1 KiB, below which the bytes saved do not
	// pay for the work (and most answers fit one packet).
	DefaultCompressionMinBytes = 1 << 10
	// DefaultCompressionLevel is the default of [Compression.Level]:
	// "fastest", which on JSON answers of 10 KB came within 1% of the
	// other levels' sizes (zstd's was even smaller) for half the CPU of
	// "default" (BenchmarkAnswer10KB in host/internal/compress).
	DefaultCompressionLevel = "fastest"
)

// WithDefaults returns c with its zero fields set to their defaults.
func (c Compression) WithDefaults() Compression {
	if c.MinBytes == 0 {
		c.MinBytes = DefaultCompressionMinBytes
	}
	if c.Level == "" {
		c.Level = DefaultCompressionLevel
	}
	return c
}

// check refuses a negative size and an unknown level.
func (c Compression) check(file string) error {
	switch c.Level {
	case "", "fastest", "default", "best":
	default:
		return badSetting(file, "/server/compression/level", "%q is not one of \"fastest\", \"default\", \"best\"", c.Level)
	}
	if c.MinBytes < 0 {
		return badSetting(file, "/server/compression/minBytes", "must be positive, got %d", c.MinBytes)
	}
	return nil
}

// Defaults of [Server].
const (
	// DefaultReadHeaderTimeout is the default of
	// [Server.ReadHeaderTimeout]: 10 s.
	DefaultReadHeaderTimeout = 10 * time.Second
	// DefaultReadTimeout is the default of [Server.ReadTimeout]: 30 s.
	DefaultReadTimeout = 30 * time.Second
	// DefaultWriteTimeout is the default of [Server.WriteTimeout]:
	// 30 s.
	DefaultWriteTimeout = 30 * time.Second
	// DefaultIdleTimeout is the default of [Server.IdleTimeout]: 60 s.
	DefaultIdleTimeout = 60 * time.Second
	// DefaultMaxHeaderBytes is the default of [Server.MaxHeaderBytes]:
	// 16 KiB, Node's default (nginx reads a line of at most 8 KiB), room
	// for the longest credentials the host verifies (bearer tokens 8 KiB,
	// API keys 4 KiB). net/http's 1 MiB let each request cost the server
	// 5x its header bytes in garbage and about 0.5 ms of CPU at 64 KiB
	// (BenchmarkJunkKeyFlood, package host).
	DefaultMaxHeaderBytes = 16 << 10
	// DefaultShutdownTimeout is the default of
	// [Server.ShutdownTimeout]: 10 s.
	DefaultShutdownTimeout = 10 * time.Second
	// DefaultPipelining is the default of [Server.Pipelining]:
	// [PipeliningClose]. Under a flood pipelined on four connections to
	// a server of one core, serving pipelined requests in turn took the
	// median of other clients' requests from about 2 ms (the same flood
	// unpipelined) to 75-90 ms; closing brought it back to 1.4-2.5 ms
	// (BenchmarkJunkKeyFlood, package host).
	DefaultPipelining = PipeliningClose
	// DefaultRefusalPause is the default of [Server.RefusalPause]:
	// 100 ms, so that a connection refused again and again is read ten
	// times a second at most, which a client honouring Retry-After (a
	// second at least) never notices.
	DefaultRefusalPause = 100 * time.Millisecond
)

// WithDefaults returns c with its zero fields set to their defaults: the
// deadlines in effect.
func (c Server) WithDefaults() Server {
	def := func(d *Duration, v time.Duration) {
		if *d <= 0 {
			*d = Duration(v)
		}
	}
	def(&c.ReadHeaderTimeout, DefaultReadHeaderTimeout)
	def(&c.ReadTimeout, DefaultReadTimeout)
	def(&c.WriteTimeout, DefaultWriteTimeout)
	def(&c.IdleTimeout, DefaultIdleTimeout)
	def(&c.ShutdownTimeout, DefaultShutdownTimeout)
	if c.MaxHeaderBytes <= 0 {
		c.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
	c.Compression = c.Compression.WithDefaults()
	if c.Pipelining == "" {
		c.Pipelining = DefaultPipelining
	}
	if c.RefusalPause == "" {
		c.RefusalPause = DefaultRefusalPause.String()
	}
	return c
}

// checkRefusalPause refuses a value of server.refusalPause that is not a
// duration of 0 or more.
func (c Server) checkRefusalPause(file string) error {
	if c.RefusalPause == "" {
		return nil
	}
	if d, err := time.ParseDuration(c.RefusalPause); err != nil || d < 0 {
		return badSetting(file, "/server/refusalPause", "%q is not a duration such as \"100ms\", or \"0\" to turn the pause off", c.RefusalPause)
	}
	return nil
}

// checkPipelining refuses a value of server.pipelining that is neither
// "close" nor "serve".
func (c Server) checkPipelining(file string) error {
	switch c.Pipelining {
	case "", PipeliningClose, PipeliningServe:
		return nil
	}
	return badSetting(file, "/server/pipelining", "%q is not one of %q (the default) and %q", c.Pipelining, PipeliningClose, PipeliningServe)
}
