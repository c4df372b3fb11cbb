package external

import (
	"strings"
	"testing"
)

// Load goes only to this machine unless the user says the network is
// theirs; the message never shows a password.
func TestCheckTargets(t *testing.T) {
	for _, tc := range []struct {
		url  string
		mine bool
		ok   bool
	}{
		{"http://127.0.0.1:26657", false, true},
		{"http://127.8.9.10:26657", false, true},
		{"http://localhost:26657", false, true},
		{"http://[::1]:26657", false, true},
		{"http://10.0.0.5:26657", false, false},
		{"https://rpc.example.com", false, false},
		{"https://admin:hunter2@rpc.example.com", false, false},
		{"https://rpc.example.com", true, true},
	} {
		err := CheckTargets([]string{tc.url}, tc.mine)
		if (err == nil) != tc.ok {
			t.Errorf("CheckTargets(%s, mine=%v) = %v; want ok=%v", tc.url, tc.mine, err, tc.ok)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("the password is in the message: %v", err)
		}
	}
}
