package main

import (
	"encoding/csv"
	"fmt"
	"strings"
)

// labelsFlag is --label: KEY=VALUE, repeatable or joined by commas, as a
// string slice flag reads it, except that a line break is refused (a
// string slice flag reads a value as CSV and keeps its first line only,
// which cut a label without a word).
type labelsFlag struct{ list *[]string }

func newLabelsFlag(list *[]string) *labelsFlag { return &labelsFlag{list} }

func (f *labelsFlag) Set(v string) error {
	if strings.ContainsAny(v, "\r\n") {
		return fmt.Errorf("label %q holds a line break: a label is one line", v)
	}
	rec, err := csv.NewReader(strings.NewReader(v)).Read()
	if err != nil {
		return fmt.Errorf("label %q: %w", v, err)
	}
	*f.list = append(*f.list, rec...)
	return nil
}

func (f *labelsFlag) Type() string { return "strings" }

// String is the slice flag's form, "[a=1,b=2]", and "" when empty (no
// default shown in help).
func (f *labelsFlag) String() string {
	if len(*f.list) == 0 {
		return ""
	}
	return "[" + strings.Join(*f.list, ",") + "]"
}
