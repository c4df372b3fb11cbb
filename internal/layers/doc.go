// Package layers holds no code: its test holds the module's import rules
// against the code (go list), so a change that breaks one fails CI.
package layers
