"""The script of a letter (retto.ops.scripts), which the script check (stages/script_check.py) counts, and the
scripts each Tesseract set's label gives it. Expected values are Unicode's Script property of each character
(Scripts.txt) and the Tesseract language codes of the set files, not the code's output."""
from retto.models import sets as model_sets
from retto.ops.scripts import letter_scripts, script_of, scripts_in


def test_letters_get_their_unicode_script():
    cases = {"a": "Latin", "É": "Latin", "ß": "Latin", "α": "Greek", "Ω": "Greek", "ῆ": "Greek", "Ж": "Cyrillic",
             "ї": "Cyrillic", "א": "Hebrew", "ب": "Arabic", "ی": "Arabic", "क": "Devanagari", "ক": "Bengali",
             "ਕ": "Gurmukhi", "ક": "Gujarati", "க": "Tamil", "క": "Telugu", "ಕ": "Kannada", "ക": "Malayalam",
             "ก": "Thai", "한": "Hangul", "ㄱ": "Hangul", "ა": "Georgian", "Ա": "Armenian", "中": "Han",
             "か": "Hiragana", "カ": "Katakana"}
    assert {c: script_of(c) for c in cases} == cases


def test_digits_marks_and_punctuation_belong_to_no_script():
    # Arabic-Indic and Devanagari digits, a Devanagari vowel sign and virama, a combining accent, the micro sign
    # and an ordinal indicator (letters by category, but of no one script), a modifier letter, punctuation
    for c in "7٣७\u093e\u094d\u0301µªʼ.,।،":
        assert script_of(c) is None, c
    assert letter_scripts("Привет, world 2026!") == {"Cyrillic": 6, "Latin": 5}


def test_each_tesseract_set_label_gives_its_script_first_and_latin_when_it_reads_english():
    tesseract = [s for s in model_sets.available() if s.line_rec]
    assert len(tesseract) >= 10
    for s in tesseract:
        scripts = scripts_in(s.label)
        assert scripts[0] != "Latin", s.name
        assert ("Latin" in scripts) == ("eng" in s.line_languages), (s.name, scripts)
        assert len(scripts) <= 2, (s.name, scripts)
    main = {s.name: scripts_in(s.label)[0] for s in tesseract}
    assert {k: main[k] for k in ("cyrillic", "greek", "korean", "thai", "devanagari", "hebrew")} == {
        "cyrillic": "Cyrillic", "greek": "Greek", "korean": "Hangul", "thai": "Thai", "devanagari": "Devanagari",
        "hebrew": "Hebrew"}
