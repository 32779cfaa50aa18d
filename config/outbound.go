package config

import (
	"crypto/x509"
	"errors"
	"io/fs"
	"path/filepath"
	"strconv"

	"github.com/wasmendpoints/endpoints/internal/allowlist"
	"github.com/wasmendpoints/endpoints/internal/appfile"
)

// Outbound is the "outbound" member of endpoints.json: the services the
// app's guests may call over HTTP (abi/README.md §3.1). The zero value
// allows no outbound request at all.
//
//	"outbound": {"allowedHosts": ["https://api.stripe.com", "https://*.internal.example:8443"],
//	             "caFile": "certs/internal-ca.pem"}
//
// # Notes
//
//   - A listed name that resolves to a loopback, private, link-local or
//     otherwise non-public address (127.0.0.1, 10.0.0.0/8,
//     169.254.169.254...) is refused when dialled, unless that address is
//     itself listed ("http://127.0.0.1:8089"): the check is made on the
//     address connected to, after DNS, so a name cannot be pointed at the
//     host's network later.
//   - TLS certificates are always verified; CAFile adds an internal
//     authority to the system's.
type Outbound struct {
	// AllowedHosts are the origins a guest may call: scheme://host[:port],
	// the host a name, "*.suffix" (any name under suffix), an IP address
	// ([::1] in brackets) or "*" (any public host); the port defaults to
	// the scheme's, "*" is any. Empty: none. ENDPOINTS_OUTBOUND_ALLOWED_HOSTS
	// takes them comma-separated.
	AllowedHosts []string `json:"allowedHosts,omitzero"`
	// CAFile is a PEM file of certificate authorities trusted besides the
	// system's, for internal services; relative to the app directory.
	CAFile string `json:"caFile,omitzero"`
	// MaxConcurrentPerHost bounds the outbound requests in flight to one
	// host (name and port) from the whole app; one more fails at once
	// with abi.ErrLimit. Defaults to [DefaultOutboundMaxConcurrentPerHost].
	MaxConcurrentPerHost int `json:"maxConcurrentPerHost,omitzero"`
}

// DefaultOutboundMaxConcurrentPerHost is the default of
// [Outbound.MaxConcurrentPerHost]: 64 requests in flight to one host.
const DefaultOutboundMaxConcurrentPerHost = 64

// WithDefaults returns o with MaxConcurrentPerHost set to
// [DefaultOutboundMaxConcurrentPerHost] when zero.
func (o Outbound) WithDefaults() Outbound {
	if o.MaxConcurrentPerHost <= 0 {
		o.MaxConcurrentPerHost = DefaultOutboundMaxConcurrentPerHost
	}
	return o
}

// checkOutbound checks the "outbound" member: every entry of allowedHosts,
// the CA file's presence (relative to appDir when appDir is not "").
func checkOutbound(file string, o Outbound) error {
	for i, h := range o.AllowedHosts {
		if _, err := allowlist.ParseEntry(h); err != nil {
			return badSetting(file, "/outbound/allowedHosts/"+strconv.Itoa(i), "%q: %v", h, err)
		}
	}
	if o.MaxConcurrentPerHost < 0 {
		return badSetting(file, "/outbound/maxConcurrentPerHost", "must be positive, got %d", o.MaxConcurrentPerHost)
	}
	return nil
}

// CAFilePath is the path of o.CAFile for an app in appDir: itself when
// absolute, else joined to appDir; "" when none is set.
func (o Outbound) CAFilePath(appDir string) string {
	if o.CAFile == "" || filepath.IsAbs(o.CAFile) {
		return o.CAFile
	}
	return filepath.Join(appDir, o.CAFile)
}

// ReadCAFile reads the CA file of o for an app in appDir, nil when none is
// set; the error names the setting, and it is one when the file holds no
// PEM certificate.
func (o Outbound) ReadCAFile(appDir string) ([]byte, error) {
	p := o.CAFilePath(appDir)
	if p == "" {
		return nil, nil
	}
	// A regular file within appfile's bound: a FIFO would hang the load,
	// a device such as /dev/zero fill the memory.
	b, err := appfile.Read(p, o.CAFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, badSetting(File, "/outbound/caFile", "%s does not exist: put there the PEM certificates of the authorities your outbound hosts' certificates chain to, or remove the setting to trust the system's authorities only", p)
	}
	if err != nil {
		return nil, badSetting(File, "/outbound/caFile", "%v", err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(b) {
		return nil, badSetting(File, "/outbound/caFile", "%s holds no PEM certificate: name a file of PEM certificates (-----BEGIN CERTIFICATE-----)", p)
	}
	return b, nil
}
