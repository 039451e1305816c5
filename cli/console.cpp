#include "console.h"

#include "prompt.h"

#include <cstdio>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

Console::Console(QIODevice *in, QIODevice *out, QIODevice *err)
    : m_in(in)
    , m_out(out)
    , m_err(err)
{
}

std::unique_ptr<Console> Console::standard()
{
    auto in = std::make_unique<QFile>();
    auto out = std::make_unique<QFile>();
    auto err = std::make_unique<QFile>();
    // Unbuffered: stdout and stderr interleave in the order they were written, and stdin is
    // never read past the line a prompt asked for.
    in->open(fileno(stdin), QIODevice::ReadOnly | QIODevice::Unbuffered);
    out->open(fileno(stdout), QIODevice::WriteOnly | QIODevice::Unbuffered);
    err->open(fileno(stderr), QIODevice::WriteOnly | QIODevice::Unbuffered);
    auto console = std::make_unique<Console>(in.get(), out.get(), err.get());
    console->m_ownedIn = std::move(in);
    console->m_ownedOut = std::move(out);
    console->m_ownedErr = std::move(err);
    console->setTerminals(Terminal::isTerminal(Terminal::Stream::In),
                          Terminal::isTerminal(Terminal::Stream::Out),
                          Terminal::isTerminal(Terminal::Stream::Err));
    return console;
}

void Console::setTerminals(bool in, bool out, bool err)
{
    m_stdinIsTerminal = in;
    m_stdoutIsTerminal = out;
    m_stderrIsTerminal = err;
}

void Console::print(const QString &text)
{
    m_out->write(text.toUtf8());
}

void Console::printError(const QString &text)
{
    m_err->write(text.toUtf8());
}

void Console::printStatus(const QString &text)
{
    if (m_stderrIsTerminal)
        m_err->write(text.toUtf8());
}

std::optional<QString> Console::readLine()
{
    if (!m_in)
        return std::nullopt;
    QByteArray line;
    char c = 0;
    bool any = false;
    // Byte by byte: a buffered read could swallow lines meant for a later prompt.
    while (m_in->getChar(&c)) {
        any = true;
        if (c == '\n')
            break;
        line.append(c);
    }
    if (!any)
        return std::nullopt;
    if (line.endsWith('\r'))
        line.chop(1);
    return QString::fromUtf8(line);
}

std::optional<QString> Console::readSecretLine()
{
    if (!m_stdinIsTerminal)
        return readLine();
    // EchoOff keeps ECHONL: the Enter the user types still ends the line on the screen.
    Terminal::EchoOff echoOff;
    return readLine();
}

} // namespace ddl::cli
