/*
Copyright 2026 The netfork Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"go/scanner"
	"go/token"
	"hash/fnv"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// line is one significant source line: its number and the hash of its tokens.
type line struct {
	num  int
	hash uint64
}

// tok is one token of a file with the line it starts on.
type tok struct {
	line int
	kind token.Token
	text string
}

// trivial are lines so common in any Go that they say nothing about a copy.
var trivial = map[string]bool{
	"if err != nil {":             true,
	"return":                      true,
	"return err":                  true,
	"return nil":                  true,
	"return nil , err":            true,
	"return nil , nil":            true,
	"return true":                 true,
	"return false":                true,
	"return false , err":          true,
	"return \"\" , err":           true,
	"return 0 , err":              true,
	"} else {":                    true,
	"default :":                   true,
	"break":                       true,
	"continue":                    true,
	"t . Fatal ( err )":           true,
	"wg . Done ( )":               true,
	"defer wg . Done ( )":         true,
	"t . Parallel ( )":            true,
	"defer cancel ( )":            true,
	"wg . Wait ( )":               true,
	"mu . Lock ( )":               true,
	"mu . Unlock ( )":             true,
	"defer mu . Unlock ( )":       true,
	"t . Helper ( )":              true,
	"for _ , tc := range tests {": true,
}

// significantLines returns the lines of src that can make a copy, in order.
func significantLines(name string, src []byte) []line {
	toks := tokens(name, src)
	toks = dropImports(toks)
	var lines []line
	for start := 0; start < len(toks); {
		end := start
		for end < len(toks) && toks[end].line == toks[start].line {
			end++
		}
		if text, ok := lineText(toks[start:end]); ok {
			h := fnv.New64a()
			h.Write([]byte(text))
			lines = append(lines, line{num: toks[start].line, hash: h.Sum64()})
		}
		start = end
	}
	return lines
}

// tokens scans src without comments or semicolons. A file that does not scan
// yields the tokens before the error, which is all that can match anyway.
func tokens(name string, src []byte) []tok {
	fset := token.NewFileSet()
	file := fset.AddFile(name, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	var toks []tok
	for {
		pos, kind, lit := s.Scan()
		if kind == token.EOF {
			return toks
		}
		if kind == token.SEMICOLON {
			continue
		}
		if lit == "" {
			lit = kind.String()
		}
		toks = append(toks, tok{line: file.Line(pos), kind: kind, text: lit})
	}
}

// dropImports removes the package clause and the imports, and every import's
// qualifier where it selects a name ("metav1.Now" becomes "Now").
func dropImports(toks []tok) []tok {
	names := map[string]bool{}
	out := make([]tok, 0, len(toks))
	for i := 0; i < len(toks); i++ {
		switch toks[i].kind {
		case token.PACKAGE:
			i++ // the package name
			continue
		case token.IMPORT:
			i = importDecl(toks, i+1, names)
			continue
		}
		if toks[i].kind == token.IDENT && names[toks[i].text] && i+2 < len(toks) &&
			toks[i+1].kind == token.PERIOD && toks[i+2].kind == token.IDENT &&
			(i == 0 || toks[i-1].kind != token.PERIOD) {
			i++ // the qualifier and its period
			continue
		}
		out = append(out, toks[i])
	}
	return out
}

// importDecl records the names of the import declaration whose specs start
// at toks[i] and returns the index of its last token.
func importDecl(toks []tok, i int, names map[string]bool) int {
	grouped := i < len(toks) && toks[i].kind == token.LPAREN
	if grouped {
		i++
	}
	for ; i < len(toks); i++ {
		switch toks[i].kind {
		case token.RPAREN:
			return i
		case token.IDENT:
			names[toks[i].text] = true
			i++ // its path
		case token.STRING:
			names[defaultName(toks[i].text)] = true
		}
		if !grouped {
			return i
		}
	}
	return i
}

var versionElem = regexp.MustCompile(`^v[0-9]+$`)

// defaultName is the name an unaliased import of the quoted path usually takes.
func defaultName(quoted string) string {
	p, err := strconv.Unquote(quoted)
	if err != nil {
		return ""
	}
	name := path.Base(p)
	if versionElem.MatchString(name) {
		name = path.Base(path.Dir(p))
	}
	if dot := strings.Index(name, ".v"); dot > 0 {
		name = name[:dot]
	}
	return strings.ReplaceAll(strings.TrimPrefix(name, "go-"), "-", "")
}

// lineText joins a line's tokens, unless the line is only punctuation or trivial.
func lineText(toks []tok) (string, bool) {
	texts := make([]string, len(toks))
	punctuation := true
	for i, t := range toks {
		texts[i] = t.text
		switch t.kind {
		case token.LPAREN, token.RPAREN, token.LBRACE, token.RBRACE, token.LBRACK, token.RBRACK,
			token.COMMA, token.COLON, token.PERIOD:
		default:
			punctuation = false
		}
	}
	text := strings.Join(texts, " ")
	return text, !punctuation && !trivial[text]
}
