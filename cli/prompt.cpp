#include "prompt.h"

#include "console.h"

#include <cstdio>

#if defined(Q_OS_WIN)
#include <io.h>
#include <windows.h>
#elif defined(Q_OS_UNIX)
#include <csignal>
#include <termios.h>
#include <unistd.h>
#endif

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

namespace Terminal {

#if defined(Q_OS_WIN)

bool isTerminal(Stream stream)
{
    FILE *file = stream == Stream::In ? stdin : stream == Stream::Out ? stdout : stderr;
    return _isatty(_fileno(file)) != 0;
}

static DWORD s_savedMode = 0;

EchoOff::EchoOff()
{
    HANDLE input = GetStdHandle(STD_INPUT_HANDLE);
    if (isTerminal(Stream::In) && GetConsoleMode(input, &s_savedMode))
        m_changed = SetConsoleMode(input, s_savedMode & ~DWORD(ENABLE_ECHO_INPUT)) != 0;
}

EchoOff::~EchoOff()
{
    if (m_changed)
        SetConsoleMode(GetStdHandle(STD_INPUT_HANDLE), s_savedMode);
}

#elif defined(Q_OS_UNIX)

bool isTerminal(Stream stream)
{
    const int fd = stream == Stream::In    ? STDIN_FILENO
                   : stream == Stream::Out ? STDOUT_FILENO
                                           : STDERR_FILENO;
    return isatty(fd) == 1;
}

static struct termios s_savedTermios;
static struct sigaction s_previousSigint;

// Ctrl-C at a password prompt must not leave the user's terminal without echo.
static void restoreAndReraise(int signal)
{
    tcsetattr(STDIN_FILENO, TCSANOW, &s_savedTermios);
    sigaction(SIGINT, &s_previousSigint, nullptr);
    raise(signal);
}

EchoOff::EchoOff()
{
    if (!isTerminal(Stream::In) || tcgetattr(STDIN_FILENO, &s_savedTermios) != 0)
        return;
    struct termios quiet = s_savedTermios;
    quiet.c_lflag &= ~tcflag_t(ECHO);
    quiet.c_lflag |= ECHONL;
    struct sigaction action = {};
    action.sa_handler = restoreAndReraise;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &s_previousSigint);
    m_changed = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) == 0;
}

EchoOff::~EchoOff()
{
    if (!m_changed)
        return;
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &s_savedTermios);
    sigaction(SIGINT, &s_previousSigint, nullptr);
}

#else

bool isTerminal(Stream)
{
    return false;
}
EchoOff::EchoOff() {}
EchoOff::~EchoOff() {}

#endif

} // namespace Terminal

Result<QString> Prompt::answerOrError(const std::optional<QString> &answer, const QString &question)
{
    // A piped answer is not echoed: end the prompt's line so that what follows starts on its own.
    if (!m_console.stdinIsTerminal())
        m_console.print(u"\n"_s);
    if (!answer) {
        return Error::make(ErrorCode::NoInput,
                           tr("no answer to \"%1\": the input ended; pipe one answer per line "
                              "into ddlcli or run it on a terminal")
                               .arg(question));
    }
    return *answer;
}

Result<QString> Prompt::ask(const QString &question)
{
    m_console.print(question + u' ');
    return answerOrError(m_console.readLine(), question);
}

Result<QString> Prompt::askSecret(const QString &question)
{
    m_console.print(question + u' ');
    return answerOrError(m_console.readSecretLine(), question);
}

Result<bool> Prompt::confirm(const QString &question)
{
    m_console.printError(question + u" [y/N] "_s);
    const std::optional<QString> line = m_console.readLine();
    if (!line)
        return Error::make(ErrorCode::NoInput,
                           tr("no answer to \"%1\": the input ended").arg(question));
    return line->trimmed().startsWith(u'y', Qt::CaseInsensitive);
}

} // namespace ddl::cli
