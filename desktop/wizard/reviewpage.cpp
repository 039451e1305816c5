#include "reviewpage.h"

#include "editor/jsonhighlighter.h"
#include "jobspec/jobspecvalidator.h"
#include "wizard/submitwizard.h"

#include <QEvent>
#include <QFontDatabase>
#include <QJsonDocument>
#include <QLabel>
#include <QPlainTextEdit>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

ReviewPage::ReviewPage(QWidget *parent)
    : QWizardPage(parent)
    , m_json(new QPlainTextEdit(this))
    , m_problems(new QLabel(this))
{
    m_json->setObjectName(u"reviewJson"_s);
    m_json->setReadOnly(true);
    m_json->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    new JsonHighlighter(m_json->document());
    m_problems->setObjectName(u"reviewProblems"_s);
    m_problems->setWordWrap(true);
    m_problems->setStyleSheet(u"color: #cf222e"_s);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_json, 1);
    layout->addWidget(m_problems);
    retranslateUi();
}

void ReviewPage::retranslateUi()
{
    setTitle(tr("Review"));
    setSubTitle(tr("The job exactly as it is sent. Press Submit to start it."));
    setButtonText(QWizard::NextButton, tr("Submit"));
}

void ReviewPage::changeEvent(QEvent *event)
{
    QWizardPage::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
}


QString ReviewPage::json() const
{
    return m_json->toPlainText();
}

void ReviewPage::initializePage()
{
    const JobSpec spec = static_cast<SubmitWizard *>(wizard())->finalSpec();
    m_json->setPlainText(QString::fromUtf8(QJsonDocument(spec.toJson()).toJson()));
    m_problems->clear();
}

bool ReviewPage::validatePage()
{
    const QList<SpecError> errors =
        JobSpecValidator::validate(static_cast<SubmitWizard *>(wizard())->finalSpec());
    QStringList lines;
    for (const SpecError &error : errors)
        lines << error.toString();
    m_problems->setText(lines.join(u'\n'));
    return errors.isEmpty();
}

} // namespace ddl::desktop
