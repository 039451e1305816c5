#pragma once

#include "command.h"
#include "seed/elasticdljob.h"

namespace ddl::cli {

// ddlcli train|predict|evaluate (`elasticdl train ...`): the ElasticDL client's job commands,
// their flags read by seed/elasticdljob.h into one DDL job and submitted.
class ElasticDlCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(ElasticDlCommand)
public:
    explicit ElasticDlCommand(ElasticDlJob::Mode mode)
        : m_mode(mode)
    {
    }

    QString name() const override { return ElasticDlJob::modeName(m_mode); }
    QString summary() const override;
    QList<OptionSpec> options() const override { return ElasticDlJob::options(m_mode); }
    Status run(CliContext &context, const ParsedArguments &arguments) override;

private:
    ElasticDlJob::Mode m_mode;
};

} // namespace ddl::cli
