from docqa.models.extractive import quote
from docqa.models.sentences import sentences
from docqa.models.units import units
from docqa.prompt import Passage


def test_table_rows_become_sentences_naming_their_columns() -> None:
    text = (
        "Fines are charged daily.\n\n"
        "| Item type | Fine per day |\n| DVDs | $1.00 |\n| Books | $0.25 |\n\n"
        "Closed days do not count. Ask at a desk."
    )
    assert list(sentences(text)) == [
        "Fines are charged daily.",
        "Item type: DVDs; Fine per day: $1.00",
        "Item type: Books; Fine per day: $0.25",
        "Closed days do not count.",
        "Ask at a desk.",
    ]


def test_ragged_table_row_and_single_pipe_line_stay_readable() -> None:
    assert list(sentences("| a | b |\n| only one |")) == ["only one"]
    assert list(sentences("| not a table")) == ["| not a table"]


def quoted(text: str) -> list[str]:
    """The units of a passage of ``text``."""
    return [u.text for u in units(Passage("a#b", "A", text), 0)]


def test_an_empty_cell_is_left_out_and_a_row_ends_with_one_full_stop() -> None:
    # Docker's service options: "Option: type; Required: ; Description: ... only).."
    table = (
        "| Option | Required | Description |\n| --- | --- | --- |\n"
        "| type | | The type of mount (volume by default). |\n| src | for bind | The source |"
    )
    assert quoted(table) == [
        "Option: type; Description: The type of mount (volume by default).",
        "Option: src; Required: for bind; Description: The source.",
    ]


def test_a_table_after_a_sentence_ending_in_a_colon_comes_as_its_rows() -> None:
    # Docker's "The following environment variables are set for Linux containers:" and its table
    text = (
        "These variables are set:\n\n| Variable | Value |\n| --- | --- |\n| HOME | From USER |\n"
        "| TERM | xterm with a TTY |\n\nMore follows."
    )
    rows = "Variable: HOME; Value: From USER\nVariable: TERM; Value: xterm with a TTY"
    assert quoted(text) == [f"These variables are set:\n{rows}", "More follows."]


def test_a_row_that_does_not_match_the_header_reads_as_its_cells() -> None:
    # borg's option tables (Sphinx): a one-cell group label over rows of an empty cell, an
    # option and its text; read as " --append-only create ..." before, with a leading space
    table = (
        "| options |\n|  | -e MODE, --encryption MODE | select encryption key mode |\n"
        "|  | --append-only | create an append-only mode repository. |"
    )
    assert quoted(table) == [
        "-e MODE, --encryption MODE; select encryption key mode.",
        "--append-only; create an append-only mode repository.",
    ]
    assert list(sentences("| a | b |\n| x | | y |")) == ["x; y"]


def test_an_escaped_bar_stays_inside_its_cell() -> None:
    # Python's stdtypes: the operator "x | y" in a cell (the reStructuredText reader writes "\\|")
    table = "| Operation | Result |\n| x \\| y | bitwise or of x and y |\n| ~x | inverted |"
    assert quoted(table) == [
        "Operation: x | y; Result: bitwise or of x and y.",
        "Operation: ~x; Result: inverted.",
    ]


def test_each_quoted_row_has_a_line_of_its_own() -> None:
    # three option rows quoted together ran on as one sentence: "... details. --storage-quota"
    text = (
        "Options of init follow.\n\n| options |\n|  | --append-only | create an append-only "
        "repository. |\n|  | --storage-quota QUOTA | Set the quota of the new repository. |"
    )
    passage = Passage("usage/init#borg-init", "borg init", text)
    chosen = units(passage, 0)
    assert [u.row for u in chosen] == [False, True, True]
    assert quote(chosen, [passage]) == (
        "borg init: Options of init follow.\n"  # the run opens with its passage's heading
        "--append-only; create an append-only repository.\n"
        "--storage-quota QUOTA; Set the quota of the new repository. [usage/init#borg-init]"
    )
