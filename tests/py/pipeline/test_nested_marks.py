"""Stage `marks` (retto.pipeline.stages.nested_marks) on boxes drawn by hand: which boxes are a line's marks."""
from retto.pipeline.stages.nested_marks import nested


def test_a_mark_boxed_apart_inside_a_thicker_line_is_dropped_and_nothing_else():
    line = [[36, 161], [189, 162], [188, 201], [36, 200]]   # a 153 x 39 line (the Kannada page's third)
    mark = [[145, 193], [158, 193], [158, 202], [145, 202]]   # a vowel sign under it, 13 x 9, 8 of 9 rows inside
    below = [[36, 204], [189, 204], [189, 243], [36, 243]]   # the next line, touching nothing
    word = [[40, 170], [80, 170], [80, 195], [40, 195]]      # a word inside, but not half as thick as the line
    assert nested([line, mark, below]) == [1]
    assert nested([line, below]) == []
    assert nested([line, word]) == []
    apart = [[145, 199], [158, 199], [158, 208], [145, 208]]   # the mark 2 rows inside of 9: its own line
    assert nested([line, apart]) == []
