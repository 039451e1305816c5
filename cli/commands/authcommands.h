#pragma once

#include "command.h"

namespace ddl::cli {

// ddlcli register: asks for an email address and a password (twice) and creates the account.
class RegisterCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(RegisterCommand)
public:
    QString name() const override { return QStringLiteral("register"); }
    QString summary() const override;
    QList<OptionSpec> options() const override { return {}; }
    Status run(CliContext &context, const ParsedArguments &arguments) override;
};

// ddlcli login: asks for the email address and password and stores the session's tokens.
class LoginCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(LoginCommand)
public:
    QString name() const override { return QStringLiteral("login"); }
    QString summary() const override;
    QList<OptionSpec> options() const override { return {}; }
    Status run(CliContext &context, const ParsedArguments &arguments) override;
};

} // namespace ddl::cli
