#include "projectpage.h"

#include "jobspec/projectconfig.h"
#include "wizard/folderfield.h"
#include "wizard/submitwizard.h"

#include <QEvent>
#include <QDir>
#include <QLabel>
#include <QVBoxLayout>

using namespace Qt::Literals::StringLiterals;

namespace ddl::desktop {

ProjectPage::ProjectPage(bool needsRepository, QWidget *parent)
    : QWizardPage(parent)
    , m_folder(new FolderField(QString(), this))
    , m_label(new QLabel(this))
    , m_config(new QLabel(this))
    , m_needsRepository(needsRepository)
{
    retranslateUi();
    m_folder->setObjectName(u"projectFolder"_s);
    m_config->setObjectName(u"projectConfig"_s);
    m_config->setWordWrap(true);
    m_config->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_label);
    layout->addWidget(m_folder);
    layout->addWidget(m_config);
    layout->addStretch();
    registerField(u"folder"_s, m_folder, "path", SIGNAL(pathChanged(QString)));
    connect(m_folder, &FolderField::pathChanged, this, &QWizardPage::completeChanged);
    connect(m_folder, &FolderField::pathChanged, m_config, &QLabel::clear);
}

// The texts set once; the page retranslates itself, as the wizard may be mid-way (the main
// window rebuilds its own views instead).
void ProjectPage::retranslateUi()
{
    setTitle(tr("Project"));
    setSubTitle(m_needsRepository
                    ? tr("The git repository with your main.py. DDL sends the code of its last "
                         "commit.")
                    : tr("Optional: a git repository whose code the commands run in."));
    m_label->setText(tr("Project folder:"));
    m_folder->setDialogTitle(tr("Project folder"));
}

void ProjectPage::changeEvent(QEvent *event)
{
    QWizardPage::changeEvent(event);
    if (event->type() == QEvent::LanguageChange)
        retranslateUi();
}

bool ProjectPage::isComplete() const
{
    const QString path = m_folder->path();
    if (path.isEmpty())
        return !m_needsRepository;
    return QDir(path).exists();
}

bool ProjectPage::validatePage()
{
    auto *submit = static_cast<SubmitWizard *>(wizard());
    const QString folder = m_folder->path();
    // Only a DDL project has a task.yaml; an OpenPAI job brings its own config.
    std::optional<Result<ProjectConfig>> read;
    if (m_needsRepository && !folder.isEmpty())
        read = ProjectConfig::readFrom(folder);
    if (!read) {
        submit->clearProjectConfig();
        return true;
    }
    const QString file = QDir(folder).filePath(ProjectConfig::FileName);
    if (!*read) {
        m_config->setText(read->error().message);
        return false;
    }
    const ProjectConfig &config = **read;
    if (!config.parsed.ok()) {
        QStringList problems;
        for (const SpecError &error : config.parsed.errors)
            problems << error.toString();
        m_config->setText(tr("%1 has errors; fix them (ddlcli submit reads the same file):\n%2")
                              .arg(file, problems.join(u'\n')));
        return false;
    }
    submit->applyProjectConfig(*config.parsed.spec, config.datasetFolder);
    const JobSpec &spec = *config.parsed.spec;
    m_config->setText(tr("Read %1: job %2, %n task(s), dataset %3.", nullptr,
                         spec.taskRoles.isEmpty() ? 1 : spec.taskRoles.first().taskNumber)
                          .arg(file, spec.jobName, config.datasetFolder));
    return true;
}

int ProjectPage::nextId() const
{
    return m_folder->path().isEmpty() ? SubmitWizard::DatasetPage : SubmitWizard::GitPage;
}

} // namespace ddl::desktop
