// Package suggest finds the closest valid name to a mistyped one, for
// "did you mean" hints in error messages.
package suggest

import "strings"

// Closest returns the candidate nearest to s by edit distance, or "" when
// none is near enough to be a plausible typo.
func Closest(s string, candidates []string) string {
	best, bestD := "", len(s)/2+2
	for _, c := range candidates {
		d := distance(strings.ToLower(s), strings.ToLower(c))
		// A suffix match ("timeout_commit" for "consensus.timeout_commit")
		// is a good suggestion even though its edit distance is large.
		if strings.HasSuffix(c, "."+s) {
			d = 1
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the Levenshtein edit distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
