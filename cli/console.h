#pragma once

#include <QFile>
#include <QIODevice>
#include <QString>

#include <memory>
#include <optional>

namespace ddl::cli {

// The three standard streams of a command, and whether they are terminals. Commands write
// through it, never to std::cout, so that tests can run them against buffers.
class Console
{
public:
    // Streams that the caller owns (tests pass QBuffers); nothing is a terminal.
    Console(QIODevice *in, QIODevice *out, QIODevice *err);
    // The process's stdin, stdout and stderr, with terminal detection.
    static std::unique_ptr<Console> standard();

    void print(const QString &text);      // stdout
    void printError(const QString &text); // stderr
    // Progress bars and other redrawn lines: stderr, written only when it is a terminal.
    void printStatus(const QString &text);

    // One line without its line ending; std::nullopt at the end of input.
    std::optional<QString> readLine();
    // As readLine(), with the terminal's echo off while it is typed (when stdin is one).
    std::optional<QString> readSecretLine();

    bool stdinIsTerminal() const { return m_stdinIsTerminal; }
    bool stdoutIsTerminal() const { return m_stdoutIsTerminal; }
    bool stderrIsTerminal() const { return m_stderrIsTerminal; }
    void setTerminals(bool in, bool out, bool err);

private:
    QIODevice *m_in;
    QIODevice *m_out;
    QIODevice *m_err;
    std::unique_ptr<QFile> m_ownedIn;
    std::unique_ptr<QFile> m_ownedOut;
    std::unique_ptr<QFile> m_ownedErr;
    bool m_stdinIsTerminal = false;
    bool m_stdoutIsTerminal = false;
    bool m_stderrIsTerminal = false;
};

} // namespace ddl::cli
