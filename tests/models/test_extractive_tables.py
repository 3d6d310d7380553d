from docqa.models.units import sentences


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
