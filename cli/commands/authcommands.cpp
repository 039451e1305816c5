#include "authcommands.h"

#include "clicontext.h"
#include "console.h"
#include "prompt.h"

#include <QDir>
#include <QFileInfo>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

// The seed's prompts, word for word: scripts pipe their answers in this order.
static const char *const EmailQuestion =
    QT_TRANSLATE_NOOP("Prompt", "Please enter your email address:");
static const char *const PasswordQuestion =
    QT_TRANSLATE_NOOP("Prompt", "Please enter your password:");
static const char *const RepeatQuestion =
    QT_TRANSLATE_NOOP("Prompt", "Please re-enter your password:");
static constexpr int MinPasswordLength = 8;

static Result<QString> askEmail(Prompt &prompt)
{
    Result<QString> email = prompt.ask(QCoreApplication::translate("Prompt", EmailQuestion));
    if (!email)
        return email;
    const QString trimmed = email->trimmed();
    if (trimmed.isEmpty() || !trimmed.contains(u'@') || trimmed.contains(u' ')) {
        return Error::make(
            ErrorCode::Usage,
            QCoreApplication::translate("Prompt", "'%1' is not an email address").arg(trimmed),
            u"email"_s);
    }
    return trimmed;
}

// The server, and the CA file it was reached with, become the defaults of later commands.
static Status rememberServer(CliContext &context)
{
    Result<QString> key = context.serverKey();
    if (!key)
        return key.error();
    context.config().setDefaultServer(*key);
    if (!context.options().caCertificate.isEmpty()) {
        context.config().setCaCertificate(
            *key, QFileInfo(context.options().caCertificate).absoluteFilePath());
    }
    return context.config().save();
}

QString RegisterCommand::summary() const
{
    return tr("create an account on the server (asks for an email address and a password)");
}

Status RegisterCommand::run(CliContext &context, const ParsedArguments &)
{
    // Trust is settled before the user types a password.
    if (Result<ApiClient *> api = context.client(); !api)
        return api.error();
    Prompt prompt(context.console());
    Result<QString> email = askEmail(prompt);
    if (!email)
        return email.error();
    Result<QString> password =
        prompt.askSecret(QCoreApplication::translate("Prompt", PasswordQuestion));
    if (!password)
        return password.error();
    Result<QString> repeated =
        prompt.askSecret(QCoreApplication::translate("Prompt", RepeatQuestion));
    if (!repeated)
        return repeated.error();
    if (*password != *repeated) {
        return Error::make(ErrorCode::Usage,
                           tr("the two passwords differ; nothing was registered, try again"),
                           u"password"_s);
    }
    if (password->size() < MinPasswordLength) {
        return Error::make(
            ErrorCode::Usage,
            tr("the password must be at least %1 characters long").arg(MinPasswordLength),
            u"password"_s);
    }
    Result<ApiResponse> answer =
        context.send([&](ApiClient &api) { return api.registerUser(*email, *password); });
    if (!answer) {
        if (answer.error().is(ErrorCode::Conflict)) {
            return Error::make(ErrorCode::Conflict,
                               tr("%1 is already registered; run ddlcli login").arg(*email),
                               u"email"_s);
        }
        return answer.error();
    }
    if (Status remembered = rememberServer(context); !remembered)
        return remembered;
    // The seed's two lines first, word for word, then where the account is.
    context.console().print(
        u"Status: "_s + QString::number(answer->status) + u'\n' + tr("Successfully registered") +
        u'\n' +
        tr("Registered %1 on %2; run ddlcli login to sign in.").arg(*email, *context.serverKey()) +
        u'\n');
    return Ok{};
}

QString LoginCommand::summary() const
{
    return tr("sign in (asks for the email address and password) and keep the session");
}

Status LoginCommand::run(CliContext &context, const ParsedArguments &)
{
    if (Result<ApiClient *> api = context.client(); !api)
        return api.error();
    Prompt prompt(context.console());
    Result<QString> email = askEmail(prompt);
    if (!email)
        return email.error();
    Result<QString> password =
        prompt.askSecret(QCoreApplication::translate("Prompt", PasswordQuestion));
    if (!password)
        return password.error();
    Result<ApiResponse> answer =
        context.send([&](ApiClient &) { return context.account().login(*email, *password); });
    if (!answer) {
        if (isUnauthorized(answer.error())) {
            return Error::make(ErrorCode::Unauthorized,
                               tr("wrong email address or password for %1").arg(*email));
        }
        return answer.error();
    }
    // The session stored the tokens (credentials.json) unless the answer held none.
    if (context.account().state() != AccountSession::State::LoggedIn) {
        return Error::make(ErrorCode::BadAnswer,
                           tr("the server's login answer holds no tokens; is %1 a DDL server?")
                               .arg(*context.serverKey()));
    }
    if (Status remembered = rememberServer(context); !remembered)
        return remembered;
    context.console().print(u"Status: "_s + QString::number(answer->status) + u'\n' +
                            tr("Successfully logged in") + u'\n' +
                            tr("Logged in as %1 on %2.").arg(*email, *context.serverKey()) + u'\n');
    return Ok{};
}

} // namespace ddl::cli
