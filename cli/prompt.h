#pragma once

#include "core/result.h"

#include <QCoreApplication>
#include <QString>

namespace ddl::cli {

class Console;

// The platform seam: is a standard stream a terminal, and turning its echo off. The only code
// of the client that differs between Unix and Windows.
namespace Terminal {
enum class Stream { In, Out, Err };
bool isTerminal(Stream stream);

// Turns the echo of the terminal on stdin off for its lifetime (nothing when it is no terminal).
class EchoOff
{
public:
    EchoOff();
    ~EchoOff();
    EchoOff(const EchoOff &) = delete;
    EchoOff &operator=(const EchoOff &) = delete;

private:
    bool m_changed = false;
};
} // namespace Terminal

// Asks the user questions on the console. On a terminal the question is shown and the answer
// typed; otherwise answers are read line by line from stdin so that scripts can pipe them.
class Prompt
{
    Q_DECLARE_TR_FUNCTIONS(Prompt)
public:
    explicit Prompt(Console &console)
        : m_console(console)
    {
    }

    // The question on stdout, the answer from the next line of stdin.
    Result<QString> ask(const QString &question);
    // As ask(), without echoing what is typed on a terminal.
    Result<QString> askSecret(const QString &question);
    // "question [y/N]" on stderr; true only for an answer starting with y or Y.
    Result<bool> confirm(const QString &question);

private:
    Result<QString> answerOrError(const std::optional<QString> &answer, const QString &question);

    Console &m_console;
};

} // namespace ddl::cli
