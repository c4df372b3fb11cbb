// Package suggest finds the closest valid name to a mistyped one, for
// "did you mean" hints in error messages.
package suggest

import "strings"

// Closest returns the candidate nearest to s, or "" when none is near
// enough to be a plausible typo. Nearest is, in order: a candidate that
// ends in "."+s (timeout_commit for consensus.timeout_commit); one under
// the same parent whose last part has every word of s's (max_p99_latency
// for latency_p99: words in another order); then the least edit distance,
// within half of s's length plus two. Ties go to the earlier candidate.
func Closest(s string, candidates []string) string {
	best, bestD := "", 2*(len(s)/2+2)
	for _, c := range candidates {
		d := 2 * distance(strings.ToLower(s), strings.ToLower(c))
		switch {
		case strings.HasSuffix(c, "."+s):
			d = 1
		case sameWords(s, c):
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// sameWords: s and c have the same parent ("a.b" of "a.b.c") and every
// word of s's last part (split at "_" and "-"), two at least, is a word of
// c's last part.
func sameWords(s, c string) bool {
	sp, sl := split(strings.ToLower(s))
	cp, cl := split(strings.ToLower(c))
	if sp != cp {
		return false
	}
	sw, cw := words(sl), words(cl)
	if len(sw) < 2 {
		return false
	}
	for _, w := range sw {
		found := false
		for _, x := range cw {
			found = found || x == w
		}
		if !found {
			return false
		}
	}
	return true
}

func split(key string) (parent, last string) {
	i := strings.LastIndexByte(key, '.')
	return key[:max(i, 0)], key[i+1:]
}

func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == '_' || r == '-' })
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
