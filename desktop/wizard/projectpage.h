#pragma once

#include <QWizardPage>

class QLabel;

namespace ddl::desktop {

class FolderField;

// Step 1: the project folder (a git repository; optional for an OpenPAI job of commands).
class ProjectPage : public QWizardPage
{
    Q_OBJECT
public:
    ProjectPage(bool needsRepository, QWidget *parent = nullptr);
    bool isComplete() const override;
    // Reads the project's task.yaml (as ddlcli does): refused with its errors shown, or its
    // job taken into the wizard.
    bool validatePage() override;
    int nextId() const override;
    FolderField *folderField() const { return m_folder; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();

    FolderField *m_folder;
    QLabel *m_label;
    QLabel *m_config; // what the task.yaml said, or what is wrong with it
    bool m_needsRepository;
};

} // namespace ddl::desktop
