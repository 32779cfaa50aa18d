package auth

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"fmt"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// MintDevToken signs claims with a private JWK (RSA, EC P-256, Ed25519 or
// a symmetric "oct" key) into a compact JWT whose header names the key's
// kid. It is for development and tests: `endpoints token` uses it.
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

// NewDevKey makes a development signing key: a fresh EC P-256 (ES256)
// private JWK named kid, for a jwt scheme's devKey, and the JSON Web Key
// Set of its public half, for its jwks. Both are indented JSON.
func NewDevKey(kid string) (private, jwks []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	priv := jose.JSONWebKey{Key: key, KeyID: kid, Algorithm: string(jose.ES256), Use: "sig"}
	if private, err = json.MarshalIndent(priv, "", "  "); err != nil {
		return nil, nil, err
	}
	if jwks, err = json.MarshalIndent(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{priv.Public()}}, "", "  "); err != nil {
		return nil, nil, err
	}
	return append(private, '\n'), append(jwks, '\n'), nil
}
