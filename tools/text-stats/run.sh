#!/bin/bash
# Tool: text-stats
# Title: Text statistics
# Version: 2.0.0
# Description: Count the words, lines and characters of a text, estimate its reading time and list its most frequent words.
#
# @param text: The text to analyse (type: string, required: true, min: 1, max: 100000)
# @param top: How many of the most frequent words to list (type: integer, default: 5, min: 0, max: 50)
# @param words_per_minute: Reading speed for the reading-time estimate (type: number, default: 238, min: 50, max: 1000)
# @param case_sensitive: Count "The" and "the" as two different words (type: boolean, required: false, default: false)
# @param stopwords: Words left out of the frequency list (type: array, items: string, default: [], max: 500)
# @param aliases: Words counted as another word in the frequency list, e.g. {"colour": "color"} (type: object, default: {})
# @param order: Order of the frequency list (type: enum, enum: count|alphabetical, default: count)

# text-stats shows every type of the annotations grammar (string, integer, number,
# boolean, array with items, object, enum) with defaults and min/max. run.sh is a
# thin launcher: the work is in stats.py, which reads the arguments as one JSON
# object on stdin (toolkiln also passes them as --name=value and env vars).
set -euo pipefail
exec python3 "$(dirname "$0")/stats.py"
