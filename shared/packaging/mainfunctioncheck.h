#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace ddl {

// Checks, by reading its text, that a DDL project's main.py defines the function the worker's
// runner calls: main(dataset_dir, model_output_dir). No Python runs: a top-level
// `def main(...)` must take two positional arguments; a main bound otherwise at the top level
// (`from train import main`, `main = ...`) is taken on trust.
class MainFunctionCheck
{
public:
    // Ok, or "no_main_function" with a message that says what to change.
    static Status check(const QByteArray &mainPy);

    // The parameters of the last top-level `def main(...)`, as written (annotations and
    // defaults kept, comments dropped); std::nullopt when there is none.
    static std::optional<QStringList> mainParameters(const QByteArray &mainPy);

    // Whether a call with two positional arguments fits these parameters.
    static bool acceptsTwoArguments(const QStringList &parameters);
};

} // namespace ddl
