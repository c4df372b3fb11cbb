package store

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A node's round of samples is stored as one text: a line a sample, its
// series quoted as Go quotes it (any byte of a label value survives, and
// the text is valid UTF-8 without a NUL, as PostgreSQL's TEXT wants) and
// its value as strconv writes a float64 (NaN and infinities included):
//
//	"cometbft_consensus_height" 1204
//	"cometbft_mempool_failed_txs{reason=\"full\"}" 7
type sampleValue struct {
	series string
	value  float64
}

// encodeRound appends the round's samples to b.
func encodeRound(b []byte, samples []sampleValue) []byte {
	for _, x := range samples {
		b = strconv.AppendQuote(b, x.series)
		b = append(b, ' ')
		b = strconv.AppendFloat(b, x.value, 'g', -1, 64)
		b = append(b, '\n')
	}
	return b
}

// decodeRound reads what encodeRound wrote, calling each for every sample
// in order; anything else is an error naming the line.
func decodeRound(text string, each func(series string, value float64)) error {
	for n := 1; text != ""; n++ {
		line, rest, ok := strings.Cut(text, "\n")
		if !ok {
			return fmt.Errorf("line %d: no end of line", n)
		}
		text = rest
		q, err := strconv.QuotedPrefix(line)
		if err != nil || q[0] != '"' || len(q) == len(line) || line[len(q)] != ' ' {
			return fmt.Errorf("line %d: want a quoted series, a space and a value", n)
		}
		series, _ := strconv.Unquote(q) // QuotedPrefix checked it
		num := line[len(q)+1:]
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return fmt.Errorf("line %d: value: %w", n, errors.Unwrap(err))
		}
		// One spelling of each: what encodeRound writes, nothing else.
		if strconv.Quote(series) != q || strconv.FormatFloat(v, 'g', -1, 64) != num {
			return fmt.Errorf("line %d: not as chainperf writes a sample", n)
		}
		each(series, v)
	}
	return nil
}
