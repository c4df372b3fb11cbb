package compare

import (
	"encoding/xml"
	"fmt"
	"io"
)

// JUnit writes the comparison as a JUnit XML report, the format CI
// systems show as test results: one test case a figure, a regressed gated
// figure a failure, an inconclusive gated one skipped (with why), every
// other figure passed (its change in the case's output).
func (res *Result) JUnit(w io.Writer) error {
	type failure struct {
		Message string `xml:"message,attr"`
		Text    string `xml:",chardata"`
	}
	type skipped struct {
		Message string `xml:"message,attr"`
	}
	type testcase struct {
		Name      string   `xml:"name,attr"`
		ClassName string   `xml:"classname,attr"`
		Failure   *failure `xml:"failure,omitempty"`
		Skipped   *skipped `xml:"skipped,omitempty"`
		Out       string   `xml:"system-out,omitempty"`
	}
	type suite struct {
		XMLName  xml.Name   `xml:"testsuite"`
		Name     string     `xml:"name,attr"`
		Tests    int        `xml:"tests,attr"`
		Failures int        `xml:"failures,attr"`
		Skipped  int        `xml:"skipped,attr"`
		Cases    []testcase `xml:"testcase"`
	}
	s := suite{Name: "chainperf compare"}
	for _, r := range res.Rows {
		c := r.Cells()
		line := fmt.Sprintf("baseline %s, candidate %s, change %s, interval %s: %s", c[1], c[2], c[3], c[4], c[5])
		tc := testcase{Name: r.Figure, ClassName: "chainperf.compare", Out: line}
		switch {
		case r.Gated && r.Verdict == Regressed:
			tc.Failure = &failure{Message: fmt.Sprintf("%s regressed %s (threshold %g)", r.Figure, c[3], r.Threshold), Text: line}
			s.Failures++
		case r.Gated && r.Verdict == Inconclusive:
			tc.Skipped = &skipped{Message: r.Why()}
			s.Skipped++
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Tests = len(s.Cases)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
