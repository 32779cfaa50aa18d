package auth

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// MintDevToken signs claims with a private JWK (RSA, EC P-256, Ed25519 or
// a symmetric "oct" key) into a compact JWT whose header names the key's
// kid. It is for development, tests and trying a deployment: `endpoints
// token` uses it.
//
//	token, err := auth.MintDevToken(jwk, map[string]any{"sub": "alice", "exp": time.Now().Add(time.Hour).Unix()})
func MintDevToken(jwk []byte, claims map[string]any) (string, error) {
	var k jose.JSONWebKey
	if err := json.Unmarshal(jwk, &k); err != nil {
		return "", fmt.Errorf("not a JSON Web Key: %v", err)
	}
	if _, oct := k.Key.([]byte); !oct && k.IsPublic() {
		return "", fmt.Errorf("a public key cannot sign: give the private JWK")
	}
	alg := keyAlg(k.Public())
	if _, oct := k.Key.([]byte); oct {
		alg = keyAlg(k)
	}
	if alg == "" {
		return "", fmt.Errorf("no signature algorithm for this key: want RSA, EC P-256, Ed25519 or oct")
	}
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: k}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		return "", err
	}
	return jwt.Signed(signer).Claims(claims).Serialize()
}

// MintSecretToken signs claims with an HS256 key (as [ReadSecretFile]
// reads one) into a compact JWT, for trying a deployment whose jwt scheme
// verifies with that "secret".
func MintSecretToken(secret []byte, claims map[string]any) (string, error) {
	jwk, err := json.Marshal(jose.JSONWebKey{Key: secret, Algorithm: string(jose.HS256)})
	if err != nil {
		return "", err
	}
	return MintDevToken(jwk, claims)
}

// KeyAlgorithms are the algorithms [NewKey] makes signing keys for, the
// first the default: ES256 (EC P-256), EdDSA (Ed25519) and RS256 (RSA of
// RSAKeyBits bits).
var KeyAlgorithms = []string{string(jose.ES256), string(jose.EdDSA), string(jose.RS256)}

// RSAKeyBits is the size of the RSA keys [NewKey] makes, the least
// RFC 7518 §3.3 allows for RS256.
const RSAKeyBits = 2048

// NewKey makes a signing key for alg, one of [KeyAlgorithms]: the private
// JWK, named kid (or, when kid is "", by its RFC 7638 thumbprint), which
// `endpoints token` signs with, and its public half as a JWK of its own
// (for [KeySet] or [AddToKeySet]). Both are indented JSON; keyID is the
// kid given or made.
func NewKey(alg, kid string) (private, public []byte, keyID string, err error) {
	var key any
	switch alg {
	case string(jose.ES256):
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	case string(jose.EdDSA):
		_, key, err = ed25519.GenerateKey(rand.Reader)
	case string(jose.RS256):
		key, err = rsa.GenerateKey(rand.Reader, RSAKeyBits)
	default:
		return nil, nil, "", fmt.Errorf("%q: want one of %s", alg, strings.Join(KeyAlgorithms, ", "))
	}
	if err != nil {
		return nil, nil, "", err
	}
	priv := jose.JSONWebKey{Key: key, Algorithm: alg, Use: "sig"}
	if kid == "" {
		pub := priv.Public()
		t, err := pub.Thumbprint(crypto.SHA256)
		if err != nil {
			return nil, nil, "", err
		}
		kid = base64.RawURLEncoding.EncodeToString(t)
	}
	priv.KeyID = kid
	if private, err = json.MarshalIndent(priv, "", "  "); err != nil {
		return nil, nil, "", err
	}
	if public, err = json.MarshalIndent(priv.Public(), "", "  "); err != nil {
		return nil, nil, "", err
	}
	return append(private, '\n'), public, kid, nil
}

// KeySet returns the JSON Web Key Set of the public JWKs keys, indented.
func KeySet(keys ...[]byte) ([]byte, error) {
	return AddToKeySet([]byte(`{"keys": []}`), keys...)
}

// AddToKeySet returns the JSON Web Key Set jwks with the public JWKs keys
// added after its own, indented: how a key set keeps verifying tokens of
// its old keys while a new one signs. Every key is kept as written, and
// every member of the set besides "keys". It refuses a set that is not
// one, a private key in it or in keys, and a key whose kid the set
// already has (keys without a kid, which a verifier tries in turn, may
// be several).
func AddToKeySet(jwks []byte, keys ...[]byte) ([]byte, error) {
	var set map[string]json.RawMessage
	if err := json.Unmarshal(jwks, &set); err != nil {
		return nil, fmt.Errorf("not a JSON Web Key Set ({\"keys\": [...]}): %v", err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(set["keys"], &raw); err != nil || set["keys"] == nil {
		return nil, fmt.Errorf("not a JSON Web Key Set: want {\"keys\": [...]}")
	}
	for _, k := range keys {
		raw = append(raw, k)
	}
	kids := map[string]bool{}
	for i, k := range raw {
		var key jose.JSONWebKey
		if err := json.Unmarshal(k, &key); err != nil {
			return nil, fmt.Errorf("keys[%d]: not a JSON Web Key: %v", i, err)
		}
		if _, oct := key.Key.([]byte); !oct && !key.IsPublic() {
			return nil, fmt.Errorf("keys[%d] is a private key: a key set holds public keys only", i)
		}
		if key.KeyID == "" {
			continue // a verifier tries each key without one
		}
		if kids[key.KeyID] {
			return nil, fmt.Errorf("the key set already has a key of kid %q: name the new one otherwise", key.KeyID)
		}
		kids[key.KeyID] = true
	}
	b, err := json.Marshal(raw)
	if err != nil {
		return nil, err
	}
	set["keys"] = b
	if b, err = json.Marshal(set); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// KeySetHolds reports whether the JSON Web Key Set jwks holds the public
// half of the private JWK key (the same kid and key), so that tokens key
// signs verify with it.
func KeySetHolds(jwks, key []byte) (bool, error) {
	var k jose.JSONWebKey
	if err := json.Unmarshal(key, &k); err != nil {
		return false, fmt.Errorf("not a JSON Web Key: %v", err)
	}
	keys, err := parseKeySet(jwks, true)
	if err != nil {
		return false, err
	}
	if _, oct := k.Key.([]byte); oct {
		return false, fmt.Errorf("a symmetric key: want the private JWK of a key pair")
	}
	for _, s := range keys {
		if _, oct := s.Key.([]byte); !oct && sameKey(jose.JSONWebKey{Key: s.Key, KeyID: s.KeyID}, jose.JSONWebKey{Key: k.Public().Key, KeyID: k.KeyID}) {
			return true, nil
		}
	}
	return false, nil
}
