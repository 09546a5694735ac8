package providers

import (
	"reflect"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// TestGeminiMemberNamesCoverGenai: every JSON name of a field genai's
// response and request types reach is in geminiMemberNames, so the gate
// refuses its variants.
func TestGeminiMemberNamesCoverGenai(t *testing.T) {
	seen := map[reflect.Type]bool{}
	var walk func(reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice || ty.Kind() == reflect.Map || ty.Kind() == reflect.Array {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] || ty.PkgPath() != "google.golang.org/genai" {
			return
		}
		seen[ty] = true
		for i := range ty.NumField() {
			fl := ty.Field(i)
			name := strings.Split(fl.Tag.Get("json"), ",")[0]
			if !fl.IsExported() || name == "-" {
				continue
			}
			if name != "" {
				if _, ok := geminiGate.members[name]; !ok {
					t.Errorf("%s.%s: member %q missing from geminiMemberNames", ty.Name(), fl.Name, name)
				}
			}
			walk(fl.Type)
		}
	}
	for _, v := range []any{genai.GenerateContentResponse{}, genai.Content{}, genai.Tool{}, genai.GenerationConfig{}, genai.ToolConfig{}, genai.SafetySetting{}, genai.APIError{}} {
		walk(reflect.TypeOf(v))
	}
}

func TestGeminiVariant(t *testing.T) {
	for k, want := range map[string]bool{
		"functionCall": false, "function_call": true, "FunctionCall": true, "FUNCTION_CALL": true,
		`\u0066unctionCall`: true, "thought_signature": true, "text": false, "Text": true,
		"command": false, "datastore": false, "dataStore": false, "data_store": true,
	} {
		if _, got := geminiGate.variant([]byte(k)); got != want {
			t.Errorf("geminiVariant(%q) = %v, want %v", k, got, want)
		}
	}
}
