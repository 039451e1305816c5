#include "elasticdlcommand.h"

#include "seed/seedsubmitter.h"

#include <QDir>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

QString ElasticDlCommand::summary() const
{
    switch (m_mode) {
    case ElasticDlJob::Mode::Train:
        return tr("the ElasticDL client's train: --model_zoo=DIR --model_def=MODULE.FUNCTION "
                  "--training_data=DIR|NAME ...");
    case ElasticDlJob::Mode::Predict:
        return tr("the ElasticDL client's predict: --prediction_data=DIR|NAME ...");
    case ElasticDlJob::Mode::Evaluate:
        return tr("the ElasticDL client's evaluate: --validation_data=DIR|NAME ...");
    }
    return {};
}

Status ElasticDlCommand::run(CliContext &context, const ParsedArguments &arguments)
{
    Result<OutputFormat> format = Output::formatFromName(arguments.value(u"format"_s, u"table"_s));
    if (!format)
        return format.error();
    Result<SeedSubmission> submission = ElasticDlJob::read(m_mode, arguments, QDir::currentPath());
    if (!submission)
        return submission.error();
    return SeedSubmitter::submit(context, *submission, *format);
}

} // namespace ddl::cli
