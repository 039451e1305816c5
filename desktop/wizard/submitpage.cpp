#include "submitpage.h"

#include "jobs/jobsubmission.h"
#include "wizard/datasetpage.h"
#include "wizard/submitwizard.h"

#include <QEvent>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

SubmitPageWidget::SubmitPageWidget(QWidget *parent)
    : QWizardPage(parent)
    , m_stage(new QLabel(this))
    , m_progress(new QProgressBar(this))
    , m_cancel(new QPushButton(tr("Cancel submission"), this))
{
    setTitle(tr("Submit"));
    m_stage->setObjectName(u"submitStage"_s);
    m_stage->setWordWrap(true);
    m_stage->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_progress->setRange(0, 0);
    m_progress->setObjectName(u"submitProgress"_s);
    m_cancel->setObjectName(u"cancelSubmission"_s);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_stage);
    layout->addWidget(m_progress);
    layout->addWidget(m_cancel, 0, Qt::AlignLeft);
    layout->addStretch();
    setFinalPage(true);
    connect(m_cancel, &QPushButton::clicked, this, [this] {
        if (m_submission)
            m_submission->cancel();
    });
}

void SubmitPageWidget::changeEvent(QEvent *event)
{
    QWizardPage::changeEvent(event);
    // What the stage line says stays as it was written; the next stage is in the new language.
    if (event->type() == QEvent::LanguageChange) {
        setTitle(tr("Submit"));
        m_cancel->setText(tr("Cancel submission"));
    }
}

JobSubmission *SubmitPageWidget::submission() const
{
    return m_submission;
}

QString SubmitPageWidget::statusText() const
{
    return m_stage->text();
}

bool SubmitPageWidget::isComplete() const
{
    return m_done;
}

void SubmitPageWidget::initializePage()
{
    start();
}

void SubmitPageWidget::cleanupPage()
{
    if (m_submission)
        m_submission->cancel();
}

void SubmitPageWidget::start()
{
    auto *wizard = static_cast<SubmitWizard *>(this->wizard());
    m_done = false;
    emit completeChanged();
    delete m_submission;
    SubmissionRequest request;
    request.spec = wizard->finalSpec();
    request.repositoryFolder = field(u"folder"_s).toString();
    request.datasetFolder = field(u"dataset"_s).toString();
    auto *datasets = qobject_cast<DatasetPage *>(wizard->page(SubmitWizard::DatasetPage));
    if (datasets)
        request.datasetName = datasets->serverDataset();
    m_submission = new JobSubmission(wizard->client(), request, this);
    m_cancel->setEnabled(true);
    connect(m_submission, &JobSubmission::stageChanged, this, [this](JobSubmission::Stage stage) {
        m_progress->setRange(0, 0);
        switch (stage) {
        case JobSubmission::Stage::Packaging:
            m_stage->setText(tr("Packaging the code and the dataset…"));
            break;
        case JobSubmission::Stage::UploadingCode:
            m_stage->setText(tr("Uploading the code…"));
            break;
        case JobSubmission::Stage::ReadingDataset:
            m_stage->setText(tr("Reading the dataset…"));
            break;
        case JobSubmission::Stage::UploadingDataset:
            m_stage->setText(tr("Uploading the dataset…"));
            break;
        case JobSubmission::Stage::Submitting:
            m_stage->setText(tr("Starting the job…"));
            m_cancel->setEnabled(false); // the job may exist already
            break;
        case JobSubmission::Stage::Cancelled:
            m_stage->setText(tr("Cancelled; nothing was submitted. Go back and submit again: "
                                "the upload goes on where it stopped."));
            m_progress->setRange(0, 1);
            m_cancel->setEnabled(false);
            break;
        default:
            break;
        }
    });
    connect(m_submission, &JobSubmission::progress, this, [this](qint64 done, qint64 total) {
        // Bytes can pass int: the bar counts KiB.
        m_progress->setRange(0, int(std::max<qint64>(1, total / 1024)));
        m_progress->setValue(int(done / 1024));
    });
    connect(m_submission, &JobSubmission::resumed, this, [this](qint64 bytes) {
        m_stage->setText(m_stage->text().section(u'\n', 0, 0) + u'\n'
                         + tr("Resumed: %1 had been sent before.")
                               .arg(QLocale().formattedDataSize(bytes)));
    });
    connect(m_submission, &JobSubmission::failed, this, [this](const QString &message) {
        m_stage->setText(tr("The job was not submitted: %1").arg(message));
        m_progress->setRange(0, 1);
        m_cancel->setEnabled(false);
    });
    connect(m_submission, &JobSubmission::submitted, this, [this, wizard](const QString &uuid) {
        m_stage->setText(tr("Job %1 submitted. It is in your job list.").arg(uuid));
        m_progress->setRange(0, 1);
        m_progress->setValue(1);
        m_cancel->setEnabled(false);
        m_done = true;
        wizard->setSubmitted(uuid);
        emit completeChanged();
    });
    m_submission->start();
}

} // namespace ddl::desktop
